package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalQuoting runs ls, tree and stat on a real terminal, a tmux
// pane, over an archive whose member names hold a newline and an escape
// sequence, and reads the screen back: the names show quoted, and the
// escape sequence never reached the terminal.
func TestTerminalQuoting(t *testing.T) {
	zip := filepath.Join(namesDir(t), "bf v2.zip")
	term := newTerminal(t, 160, 50)
	term.start(t, cliLine(t, "ls", zip)+"; "+cliLine(t, "tree", zip)+"; "+cliLine(t, "stat", zip+"|zip:a%0Ab"))
	screen := term.wait(t)
	styled := term.styledScreen(t)
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

// TestTerminalBinary runs array --read on an image with a real terminal,
// a tmux pane, as standard output: it refuses, with exit 1 and a line
// that says how to redirect, and no pixel reaches the screen; the same
// command into a pipe writes the elements.
func TestTerminalBinary(t *testing.T) {
	img := testImagePath(t, "png-gray8.png")
	term := newTerminal(t, 160, 50)
	term.start(t, cliLine(t, "array", "--read", img)+"; echo exit=$?")
	screen := term.wait(t)
	if !strings.Contains(screen, "exit=1") || !strings.Contains(screen, "standard output is a terminal") || !strings.Contains(screen, "> a.bin") {
		t.Errorf("array --read to a terminal shows:\n%s\nwant a refusal that says how to redirect, and exit 1", screen)
	}
	// cat of the image's pixels: refused the same way, written with
	// --force.
	term.start(t, cliLine(t, "cat", "file:"+img+"|png:")+"; echo exit=$?")
	if screen := term.wait(t); !strings.Contains(screen, "exit=1") || !strings.Contains(screen, "--force") {
		t.Errorf("cat of pixels to a terminal shows:\n%s\nwant a refusal that names --force, and exit 1", screen)
	}
	term.start(t, cliLine(t, "array", "--read", "--force", img)+"; echo; echo exit=$?")
	if screen := term.wait(t); !strings.Contains(screen, "exit=0") {
		t.Errorf("array --read --force shows:\n%s", screen)
	}
	term.start(t, cliLine(t, "cat", "--force", "file:"+img+"|png:")+"; echo; echo exit=$?")
	if screen := term.wait(t); !strings.Contains(screen, "exit=0") {
		t.Errorf("cat --force shows:\n%s", screen)
	}
	r := runCLI(t, "array", "--read", img)
	if r.code != 0 || len(r.stdout) == 0 {
		t.Errorf("array --read into a pipe: exit %d, %d bytes; stderr %q", r.code, len(r.stdout), r.stderr)
	}
}
