package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
)

// tmuxWait bounds every wait on a terminal: for a screen to show
// something, or for a command line to end.
const tmuxWait = time.Minute

// tmuxServers numbers the tmux servers of this test process, so that
// each has a socket of its own.
var tmuxServers atomic.Int64

// A terminal is a real terminal for a test: a tmux server on a socket of
// its own whose one pane runs a shell. Its methods take the test that
// calls them, which may be a subtest of the one that started it.
type terminal struct {
	tmux, socket string
}

// newTerminal starts a tmux server with a pane of width columns and
// height lines running argv, or /bin/sh when argv is empty, and kills it
// when t ends. A missing tmux fails the test in CI and skips it
// elsewhere (fstest.NeedTool).
func newTerminal(t *testing.T, width, height int, argv ...string) *terminal {
	t.Helper()
	tmux := fstest.NeedTool(t, "tmux")
	if len(argv) == 0 {
		argv = []string{"/bin/sh"}
	}
	term := &terminal{tmux: tmux, socket: fmt.Sprintf("pipefs-test-%d-%d", os.Getpid(), tmuxServers.Add(1))}
	term.run(t, append([]string{"new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-s", "t"}, argv...)...)
	t.Cleanup(func() { exec.Command(tmux, "-L", term.socket, "kill-server").Run() })
	return term
}

// run runs the tmux command args on the terminal's server and returns
// its output.
func (term *terminal) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(term.tmux, append([]string{"-L", term.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// typeText types text literally: a tab is the Tab key, a carriage return
// the Enter key.
func (term *terminal) typeText(t *testing.T, text string) {
	t.Helper()
	if text != "" {
		term.run(t, "send-keys", "-t", "t", "-l", text)
	}
}

// press presses the keys that tmux names ("C-c", "Enter", ...).
func (term *terminal) press(t *testing.T, keys ...string) {
	t.Helper()
	term.run(t, append([]string{"send-keys", "-t", "t"}, keys...)...)
}

// typeLine types line and presses Enter.
func (term *terminal) typeLine(t *testing.T, line string) {
	t.Helper()
	term.typeText(t, line)
	term.press(t, "Enter")
}

// start clears the screen and runs the shell command line cmd; wait
// waits for it to end.
func (term *terminal) start(t *testing.T, cmd string) {
	t.Helper()
	term.typeLine(t, fmt.Sprintf("clear; %s; %s -L %s wait-for -S done", cmd, shellQuote(term.tmux), term.socket))
}

// wait waits for the command line that start began to end, and returns
// the screen.
func (term *terminal) wait(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tmuxWait)
	defer cancel()
	if out, err := exec.CommandContext(ctx, term.tmux, "-L", term.socket, "wait-for", "done").CombinedOutput(); err != nil {
		t.Fatalf("waiting for the command line to end: %v\n%s\nthe screen shows:\n%s", err, out, term.screen(t))
	}
	return term.screen(t)
}

// screen returns the text the pane shows, wrapped lines joined.
func (term *terminal) screen(t *testing.T) string {
	t.Helper()
	return term.run(t, "capture-pane", "-p", "-J", "-t", "t")
}

// styledScreen returns the screen with the escape sequences of its
// colours and attributes.
func (term *terminal) styledScreen(t *testing.T) string {
	t.Helper()
	return term.run(t, "capture-pane", "-p", "-J", "-e", "-t", "t")
}

// waitFor waits until ok accepts the screen, and returns it; after
// tmuxWait the test fails, showing the screen and what it waited for.
func (term *terminal) waitFor(t *testing.T, what string, ok func(screen string) bool) string {
	t.Helper()
	deadline := time.Now().Add(tmuxWait)
	for {
		screen := term.screen(t)
		if ok(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s; the screen shows:\n%s", what, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cliLine returns the shell command line that runs this test binary as
// pipefs with args, each quoted for the shell.
func cliLine(t *testing.T, args ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	words := []string{runMainEnv + "=1", shellQuote(exe)}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}
