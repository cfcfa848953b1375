// Package daemon runs a command in the background once it is ready, as
// pipefs mount --daemon does (and sshfs, rclone mount --daemon): Start
// runs the same program again, with the same arguments less --daemon, in
// a session of its own, and returns only when that process has written
// its ready line.
//
// The protocol: the parent passes the child a pipe as file descriptor 3
// and sets $PIPEFS_MOUNT_READY_FD=3 in its environment. The child (see
// ReadyWriter) writes one line ending in "\n" to it once it is ready,
// and closes it. Until then the child's stderr goes to a pipe whose
// contents the parent copies to its own stderr (all that was written
// before the ready line, whichever pipe it reads first); after, the child ignores
// SIGPIPE, so that what it logs once its parent has gone is dropped
// instead of ending it.
//
// A child that exits before it is ready makes Start return ErrExited (its
// error is on stderr), and canceling Start's context before then sends
// the child SIGINT, waits for it, and returns the context's cause.
package daemon

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrExited is what Start returns when the child exited with an error
// before it was ready: its message is on stderr.
var ErrExited = errors.New("the background process exited with an error before it was ready")

// readyFDEnv names, in the environment of the process that mount --daemon
// starts, the file descriptor on which it writes its ready line.
const readyFDEnv = "PIPEFS_MOUNT_READY_FD"

// Args returns the command line of the child that Start starts: args
// without the --daemon flag (up to "--", after which nothing is a flag).
func Args(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--daemon" || strings.HasPrefix(a, "--daemon=") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// Start runs the program in the background: it starts the same
// executable with Args(args), in a session of its own, and returns once
// that process is ready, with its ready line written to stdout. A
// process that fails before it is ready has its stderr copied to
// stderr, and the error says it failed (ErrExited). Canceling ctx
// before then stops the process.
func Start(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("mount --daemon: %w", err)
	}
	ready, readyW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer ready.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		readyW.Close()
		return err
	}
	child := exec.Command(exe, Args(args)...)
	child.Env = append(os.Environ(), readyFDEnv+"=3")
	child.ExtraFiles = []*os.File{readyW}
	child.Stderr = errW
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = child.Start()
	readyW.Close()
	errW.Close()
	if err != nil {
		errR.Close()
		return fmt.Errorf("mount --daemon: %w", err)
	}
	// What the process says before it is ready is the user's to see.
	var mu sync.Mutex
	var said bytes.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := errR.Read(buf)
			mu.Lock()
			said.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(ready).ReadString('\n')
		lines <- line
	}()
	var line string
	select {
	case line = <-lines:
	case <-ctx.Done():
		child.Process.Signal(os.Interrupt) // it unmounts what it mounted
		line = <-lines
		if line != "" && !strings.HasSuffix(line, "\n") {
			line = ""
		}
		if line != "" {
			child.Process.Signal(os.Interrupt) // ready as it was stopped
		}
		child.Wait()
		<-copied
		errR.Close()
		stderr.Write(said.Bytes())
		return context.Cause(ctx)
	}
	if strings.HasSuffix(line, "\n") {
		// What the process wrote to stderr before its ready line is in
		// the pipe by now, read or not: stop the copier and take the
		// rest without waiting for more.
		errR.SetReadDeadline(time.Now())
		<-copied
		errR.SetReadDeadline(time.Time{})
		drain(errR, &said)
		errR.Close() // the process ignores SIGPIPE: what it logs later is dropped
		stderr.Write(said.Bytes())
		fmt.Fprint(stdout, line)
		return child.Process.Release()
	}
	werr := child.Wait()
	<-copied
	errR.Close()
	stderr.Write(said.Bytes())
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		return ErrExited // its error is on stderr
	}
	if werr != nil {
		return fmt.Errorf("mount --daemon: %w", werr)
	}
	return errors.New("mount --daemon: the mount exited before it was ready")
}

// ReadyWriter returns where a command writes its ready line: stdout, or
// in the process that Start started (daemon), the pipe its parent reads,
// which it closes once written. That process then ignores SIGPIPE, so
// that what it logs once its parent has gone is dropped instead of
// ending it.
func ReadyWriter(stdout io.Writer) (w io.Writer, daemon bool, done func()) {
	if os.Getenv(readyFDEnv) != "3" {
		return stdout, false, func() {}
	}
	os.Unsetenv(readyFDEnv)
	f := os.NewFile(3, "ready")
	return f, true, func() {
		signal.Ignore(syscall.SIGPIPE)
		f.Close()
	}
}

// drain writes to w what the pipe f holds now, without waiting for more.
func drain(f *os.File, w io.Writer) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 4096)
	rc.Read(func(fd uintptr) bool {
		for {
			n, err := syscall.Read(int(fd), buf)
			if n <= 0 || err != nil {
				return true // empty (EAGAIN), closed, or failed
			}
			w.Write(buf[:n])
		}
	})
}
