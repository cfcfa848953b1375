package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// childModeEnv tells the test binary, started again by Start, to act as
// the child: "ready" writes the ready line and says something on stderr
// first, "fail" exits 1 with a message, "hang" opens the FIFO that
// $PIPEFS_DAEMON_TEST_FIFO names once it handles SIGINT, then waits for
// it and says so.
const (
	childModeEnv = "PIPEFS_DAEMON_TEST_MODE"
	childFIFOEnv = "PIPEFS_DAEMON_TEST_FIFO"
)

func TestMain(m *testing.M) {
	switch os.Getenv(childModeEnv) {
	case "":
		os.Exit(m.Run())
	case "ready":
		fmt.Fprintln(os.Stderr, "child: warming up")
		w, inBackground, done := ReadyWriter(os.Stdout)
		if !inBackground {
			fmt.Fprintln(os.Stderr, "child: not started by Start")
			os.Exit(3)
		}
		fmt.Fprintf(w, "ready with %s\n", strings.Join(os.Args[1:], " "))
		done()
		os.Exit(0)
	case "fail":
		fmt.Fprintln(os.Stderr, "child: cannot mount")
		os.Exit(1)
	case "hang":
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		f, err := os.OpenFile(os.Getenv(childFIFOEnv), os.O_WRONLY, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		f.Close() // the test cancels Start now
		<-sig
		fmt.Fprintln(os.Stderr, "child: interrupted")
		os.Exit(1)
	}
}

// TestArgs checks that --daemon is dropped, and nothing after "--".
func TestArgs(t *testing.T) {
	got := Args([]string{"mount", "--daemon", "--daemon=true", "a", "--", "--daemon"})
	if want := []string{"mount", "a", "--", "--daemon"}; !slices.Equal(got, want) {
		t.Errorf("Args = %q, want %q", got, want)
	}
}

// TestStart starts the test binary as the child: Start returns once it
// is ready, with its ready line on stdout and what it said before on
// stderr; a child that fails is ErrExited with its message on stderr; a
// cancelled Start stops the child and returns the cause.
func TestStart(t *testing.T) {
	t.Setenv(childModeEnv, "ready")
	var out, errOut bytes.Buffer
	if err := Start(context.Background(), []string{"x", "--daemon", "y"}, &out, &errOut); err != nil {
		t.Fatalf("Start: %v; stderr %q", err, errOut.String())
	}
	if out.String() != "ready with x y\n" || errOut.String() != "child: warming up\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}

	t.Setenv(childModeEnv, "fail")
	out.Reset()
	errOut.Reset()
	if err := Start(context.Background(), nil, &out, &errOut); !errors.Is(err, ErrExited) || errOut.String() != "child: cannot mount\n" || out.Len() != 0 {
		t.Errorf("failing child: %v, stdout %q, stderr %q; want ErrExited and its message", err, out.String(), errOut.String())
	}

	// The child opens the FIFO once it handles SIGINT; the test cancels
	// Start when it has.
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(childModeEnv, "hang")
	t.Setenv(childFIFOEnv, fifo)
	out.Reset()
	errOut.Reset()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped by the test")
	go func() {
		if f, err := os.Open(fifo); err == nil {
			f.Close()
		}
		cancel(stop)
	}()
	if err := Start(ctx, nil, &out, &errOut); !errors.Is(err, stop) || errOut.String() != "child: interrupted\n" || out.Len() != 0 {
		t.Errorf("cancelled Start: %v, stdout %q, stderr %q; want the cause, and the child interrupted and waited for", err, out.String(), errOut.String())
	}
}
