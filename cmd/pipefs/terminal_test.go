package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalQuoting runs ls, tree and stat on a real terminal, a tmux
// pane, over an archive whose member names hold a newline and an escape
// sequence, and reads the screen back: the names show quoted, and the
// escape sequence never reached the terminal.
func TestTerminalQuoting(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing; .ci/run installs it")
		}
		t.Skip("no tmux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	zip := filepath.Join(namesDir(t), "bf v2.zip")
	socket := fmt.Sprintf("pipefs-test-%d", os.Getpid())
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("new-session", "-d", "-x", "160", "-y", "50", "-s", "t", "/bin/sh")
	t.Cleanup(func() { exec.Command(tmux, "-L", socket, "kill-server").Run() })

	quoted := "'" + strings.ReplaceAll(zip, "'", `'\''`) + "'"
	cli := runMainEnv + "=1 " + exe
	line := fmt.Sprintf("clear; %s ls %s; %s tree %s; %s stat %s'|zip:a%%0Ab'; tmux -L %s wait-for -S done",
		cli, quoted, cli, quoted, cli, quoted, socket)
	run("send-keys", "-t", "t", line, "Enter")
	run("wait-for", "done")

	screen := run("capture-pane", "-p", "-t", "t", "-J", "-S", "0")
	styled := run("capture-pane", "-p", "-e", "-t", "t", "-S", "0")
	for _, want := range []string{
		`''$'\033''[31mred'` + "\n" + `'a'$'\n''b'` + "\n'sub dir/'\n", // ls
		`├── ''$'\033''[31mred' (6)`,                                   // tree
		`├── 'a'$'\n''b' (7)`,
		`Name:     'a'$'\n''b'`, // stat
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal shows:\n%s\nwant it to hold:\n%s", screen, want)
		}
	}
	if strings.Contains(styled, "\x1b[31m") {
		t.Errorf("the escape sequence in a name reached the terminal:\n%q", styled)
	}
}
