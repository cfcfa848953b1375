package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// childModeEnv tells the test binary, started again by Start, to act as
// the child: "ready" writes the ready line and says something on stderr
// first, "fail" exits 1 with a message, "hang" waits for a signal.
const childModeEnv = "PIPEFS_DAEMON_TEST_MODE"

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
		select {} // SIGINT ends it
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

	t.Setenv(childModeEnv, "hang")
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped by the test")
	cancel(stop)
	if err := Start(ctx, nil, &out, &errOut); !errors.Is(err, stop) {
		t.Errorf("cancelled Start: %v, want the cause", err)
	}
}
