package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/listfmt"
)

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
// height lines running argv, and kills it when t ends, once the pane's
// process has exited (so that it writes nothing more in t's directories).
// When argv is empty the pane runs /bin/sh with the prompt "$ ", and
// newTerminal returns once it shows; a caller that passes argv waits for
// its shell's prompt itself, before it types. A missing tmux fails the
// test in CI and skips it elsewhere (fstest.NeedTool).
func newTerminal(t *testing.T, width, height int, argv ...string) *terminal {
	t.Helper()
	tmux := fstest.NeedTool(t, "tmux")
	sh := len(argv) == 0
	if sh {
		argv = []string{"env", "PS1=$ ", "/bin/sh"}
	}
	term := &terminal{tmux: tmux, socket: fmt.Sprintf("pipefs-test-%d-%d", os.Getpid(), tmuxServers.Add(1))}
	term.run(t, append([]string{"new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-s", "t"}, argv...)...)
	pid, err := strconv.Atoi(strings.TrimSpace(term.run(t, "display-message", "-p", "-t", "t", "#{pane_pid}")))
	if err != nil {
		t.Fatalf("the pane's process id: %v", err)
	}
	t.Cleanup(func() {
		exec.Command(tmux, "-L", term.socket, "kill-server").Run()
		waitUntil(t, fmt.Sprintf("the pane's process %d to exit after kill-server", pid), func() bool { return exited(pid) }, nil)
	})
	if sh {
		term.waitFor(t, "the prompt", func(screen string) bool { return strings.TrimSpace(screen) == "$" })
	}
	return term
}

// exited reports whether the process pid has exited: it is gone, or a
// zombie that no one has reaped (it is no child of the test's, and the
// machine's init may not reap).
func exited(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
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
	term.typeLine(t, fmt.Sprintf("clear; %s; %s -L %s wait-for -S done", cmd, listfmt.ShellQuote(term.tmux), term.socket))
}

// wait waits for the command line that start began to end, and returns
// the screen; at waitDeadline the test fails, showing the screen.
func (term *terminal) wait(t *testing.T) string {
	t.Helper()
	ctx, cancel := waitContext(t, context.Background())
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

// waitFor waits until ok accepts the screen, and returns it; at
// waitDeadline the test fails, showing the screen and what it waited for.
func (term *terminal) waitFor(t *testing.T, what string, ok func(screen string) bool) string {
	t.Helper()
	var screen string
	waitUntil(t, what, func() bool {
		screen = term.screen(t)
		return ok(screen)
	}, func() string { return "the screen shows:\n" + screen })
	return screen
}

// cliLine returns the shell command line that runs this test binary as
// pipefs with args, each quoted for the shell.
func cliLine(t *testing.T, args ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	words := []string{runMainEnv + "=1", listfmt.ShellQuote(exe)}
	for _, a := range args {
		words = append(words, listfmt.ShellQuote(a))
	}
	return strings.Join(words, " ")
}
