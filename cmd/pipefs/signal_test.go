package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// runMainEnv, set in the environment, makes the test binary run main: a
// test starts the CLI as a child process to send it real signals.
const runMainEnv = "PIPEFS_TEST_RUN_MAIN"

// cliCommand returns a command that runs the CLI, this test binary, in a
// child process.
func cliCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	return cmd
}

// TestSIGINT sends SIGINT to a cat of a long stream, once output has
// begun: the copy stops, the arguments after it are not opened, and the
// exit status is 130.
func TestSIGINT(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on windows")
	}
	dir := t.TempDir()
	// 64 gzip members of 16 MiB of zeros: 1 GiB of output from 1 MiB.
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestSpeed)
	if _, err := zw.Write(make([]byte, 16<<20)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	const members = 64
	big := filepath.Join(dir, "big.gz")
	if err := os.WriteFile(big, bytes.Repeat(member.Bytes(), members), 0o644); err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(dir, "later.txt")
	if err := os.WriteFile(later, []byte("later argument\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := cliCommand(t, "--max-ratio=-1", "cat", big+"|gzip:", later, later)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for output: cat is in the middle of the stream.
	first := make([]byte, 1<<20)
	if _, err := io.ReadFull(stdout, first); err != nil {
		t.Fatalf("reading the first MiB: %v; stderr: %s", err, stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var n, nonZero int64
	buf := make([]byte, 1<<20)
	for {
		k, err := stdout.Read(buf)
		n += int64(k)
		for _, c := range buf[:k] {
			if c != 0 {
				nonZero++
			}
		}
		if err != nil {
			break
		}
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit status %d (%v), want %d; stderr: %s", code, err, exitInterrupted, stderr.String())
	}
	if total := int64(len(first)) + n; total >= members*16<<20 {
		t.Errorf("cat wrote all %d bytes: SIGINT did not stop the stream", total)
	}
	if nonZero != 0 {
		t.Errorf("stdout holds %d bytes of the later arguments", nonZero)
	}
	if got, want := stderr.String(), "pipefs: stopped: interrupt signal received\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}
