package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// shellReady is what the shells' start-up files print on their last
// line: before it shows, keys typed may reach a shell that has not yet
// set up its line editor or loaded pipefs's completion.
const shellReady = "pipefs-test-shell-ready"

// completeTimeoutVar gives each completion in the shells as long as the
// tests' (see TestMain): a completion that gives up offers nothing.
const completeTimeoutVar = "PIPEFS_COMPLETE_TIMEOUT=" + testCompleteTimeout

// A shellStep types keys, then presses Tab tabs times, and waits for the
// command line to read line and, if list is set, for the screen to list
// those candidates.
type shellStep struct {
	keys string
	tabs int
	line string
	list []string
}

// A shellCase is one command line completed in steps, then run: out is
// what it prints.
type shellCase struct {
	name  string
	steps []shellStep
	out   string
}

// TestCompleteShells completes pipelines in real bash (with
// bash-completion), zsh and fish, each in a tmux pane, with the scripts
// that "pipefs completion SHELL" prints: a quoted pipeline, one with "\|",
// a list of several candidates, names holding a space and "|#?%", the
// adapters after a "|", and the names that go on (a .tar.gz in a zip, a
// .tar.bz2), after which no quote is closed and no space added. Each completed line is then run, and its
// output read from the screen.
func TestCompleteShells(t *testing.T) {
	fstest.NeedTool(t, "tmux")
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "pipefs"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := t.TempDir()
	files := layerFiles(t)
	files["with space/file one.txt"] = []byte("one\n")
	files["with space/a|b#c?d%e.txt"] = []byte("odd\n")
	for name, data := range nestFiles(t) {
		files[name] = data
	}
	writeFiles(t, work, files)

	// Shared by the three shells: the same keys, and lines that differ
	// only where each shell quotes in its own way.
	quoted := shellCase{"quoted", []shellStep{
		{keys: "pipefs cat 'outer.zip|zip:i", tabs: 1, line: "pipefs cat 'outer.zip|zip:inner.zip"},
		{keys: "|", tabs: 1, line: "pipefs cat 'outer.zip|zip:inner.zip|zip:"},
		{keys: "h", tabs: 1, line: "pipefs cat 'outer.zip|zip:inner.zip|zip:hello.txt'"},
	}, "deep hello"}
	// odd is how the shell escapes "odd %25%23%3F.txt".
	escaped := func(odd string) shellCase {
		return shellCase{"escaped pipe", []shellStep{
			{keys: `pipefs cat outer.zip\|zip:inner.z`, tabs: 1, line: `pipefs cat outer.zip\|zip:inner.zip`},
			{keys: `\|`, tabs: 1, line: `pipefs cat outer.zip\|zip:inner.zip\|zip:`},
			{keys: "o", tabs: 1, line: `pipefs cat outer.zip\|zip:inner.zip\|zip:` + odd},
		}, "odd"}
	}
	adapters := shellCase{"adapters", []shellStep{
		{keys: `pipefs cat a.tar.gz\|`, tabs: 1, line: `pipefs cat a.tar.gz\|gzip:`},
		{keys: `\|`, tabs: 1, line: `pipefs cat a.tar.gz\|gzip:\|pipefs.tar:`},
		{keys: "t", tabs: 1, line: `pipefs cat a.tar.gz\|gzip:\|pipefs.tar:top.txt`},
	}, "top"}
	odd := shellCase{"odd name in quotes", []shellStep{
		{keys: "pipefs cat 'with space/a", tabs: 1, line: "pipefs cat 'with space/a%7Cb%23c%3Fd%25e.txt'"},
	}, "odd"}
	// A container that is no zip, in a zip, and a compressed tar: the
	// line goes on after each name, with no quote closed and no space.
	nested := shellCase{"container in a zip", []shellStep{
		{keys: "pipefs cat 'nest.zip|zip:p", tabs: 1, line: "pipefs cat 'nest.zip|zip:pack.tar.gz"},
		{keys: "|", tabs: 1, line: "pipefs cat 'nest.zip|zip:pack.tar.gz|gzip:"},
		{keys: "|", tabs: 1, line: "pipefs cat 'nest.zip|zip:pack.tar.gz|gzip:|pipefs.tar:"},
		{keys: "t", tabs: 1, line: "pipefs cat 'nest.zip|zip:pack.tar.gz|gzip:|pipefs.tar:top.txt'"},
	}, "top"}
	chain := shellCase{"compressed tar", []shellStep{
		{keys: "pipefs cat x.tar.b", tabs: 1, line: "pipefs cat x.tar.bz2"},
		{keys: `\|`, tabs: 1, line: `pipefs cat x.tar.bz2\|pipefs.bzip2:`},
		{keys: `\|`, tabs: 1, line: `pipefs cat x.tar.bz2\|pipefs.bzip2:\|pipefs.tar:`},
		{keys: "d/a", tabs: 1, line: `pipefs cat x.tar.bz2\|pipefs.bzip2:\|pipefs.tar:d/a.txt`},
	}, "hi"}
	list := func(tabs int, list ...string) shellCase {
		return shellCase{"several candidates", []shellStep{
			{keys: "pipefs cat with", tabs: 1, line: `pipefs cat with\ space/`},
			{keys: "", tabs: tabs, line: `pipefs cat with\ space/`, list: list},
			{keys: "f", tabs: 1, line: `pipefs cat with\ space/file\ one.txt`},
		}, "one"}
	}

	shells := []struct {
		name  string
		setup func(t *testing.T, dir string) []string
		cases []shellCase
	}{
		{"bash", func(t *testing.T, dir string) []string {
			fstest.NeedTool(t, "bash")
			const bc = "/usr/share/bash-completion/bash_completion"
			if _, err := os.Stat(bc); err != nil {
				fstest.Unavailable(t, "bash-completion is not installed: %v", err)
			}
			rc := filepath.Join(dir, "bashrc")
			writeRC(t, rc, "PS1='$ '\nunset HISTFILE\nexport PATH=%s:$PATH\nsource "+bc+"\nsource <(pipefs completion bash)\ncd %s\necho %s\n", bin, work, shellReady)
			return []string{"env", "HOME=" + dir, completeTimeoutVar, "bash", "--noprofile", "--rcfile", rc, "-i"}
		}, []shellCase{quoted, escaped(`odd\ %25%23%3F.txt`), adapters, odd, nested, chain,
			list(2, `with\ space/a%7Cb%23c%3Fd%25e.txt`, `with\ space/file\ one.txt`)}},
		{"zsh", func(t *testing.T, dir string) []string {
			fstest.NeedTool(t, "zsh")
			writeRC(t, filepath.Join(dir, ".zshrc"), "PS1='$ '\nunset HISTFILE\nexport PATH=%s:$PATH\nautoload -Uz compinit && compinit -u\nsource <(pipefs completion zsh)\ncd %s\necho %s\n", bin, work, shellReady)
			return []string{"env", "HOME=" + dir, "ZDOTDIR=" + dir, completeTimeoutVar, "zsh", "-i"}
		}, []shellCase{quoted, escaped(`odd\ %25%23%3F.txt`), adapters, odd, nested, chain,
			list(1, `with\ space/a%7Cb%23c%3Fd%25e.txt`, `with\ space/file\ one.txt`)}},
		{"fish", func(t *testing.T, dir string) []string {
			fstest.NeedTool(t, "fish")
			// fish fills generated_completions from the man pages in the
			// background when the directory is missing, racing the test's
			// clean-up: an existing one turns that off.
			if err := os.MkdirAll(filepath.Join(dir, "fish", "generated_completions"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeRC(t, filepath.Join(dir, "fish", "config.fish"), "set -g fish_greeting\nset -g fish_autosuggestion_enabled 0\nfunction fish_prompt; echo -n '$ '; end\nset -gx PATH %s $PATH\npipefs completion fish | source\ncd %s\necho %s\n", bin, work, shellReady)
			return []string{"env", "HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir, completeTimeoutVar, "fish", "--private", "-i"}
		}, []shellCase{quoted, escaped(`odd\ \%25\%23\%3F.txt`), adapters, odd, nested, chain,
			// fish's pager shows names after the common prefix, and
			// lists a space unescaped.
			list(1, `space/a%7Cb%23c%3Fd%25e.txt`, `space/file one.txt`)}},
	}
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			dir := t.TempDir()
			term := newTerminal(t, 250, 40, sh.setup(t, dir)...)
			// The start-up file has run to its end, and the shell waits
			// for a command line, its prompt on the last line (fish
			// says it runs in private mode in between): keys typed from
			// now on are its.
			term.waitFor(t, "the start-up file's last line, then the prompt", func(screen string) bool {
				lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
				return slices.Contains(lines, shellReady) && strings.TrimSpace(lines[len(lines)-1]) == "$"
			})
			for _, c := range sh.cases {
				t.Run(c.name, func(t *testing.T) {
					// Empty the command line and the screen.
					term.press(t, "C-u")
					term.typeLine(t, "clear")
					term.waitFor(t, "a clear screen", func(screen string) bool {
						return strings.TrimSpace(screen) == "$"
					})
					for _, s := range c.steps {
						term.typeText(t, s.keys)
						for range s.tabs {
							term.typeText(t, "\t")
						}
						term.waitFor(t, fmt.Sprintf("the line %q and the list %q", s.line, s.list), func(screen string) bool {
							if promptLine(screen) != s.line {
								return false
							}
							for _, l := range s.list {
								if !strings.Contains(screen, l) {
									return false
								}
							}
							return true
						})
					}
					term.typeText(t, "\r")
					term.waitFor(t, fmt.Sprintf("the output %q", c.out), func(screen string) bool {
						lines := strings.Split(screen, "\n")
						for i, l := range lines {
							if strings.TrimRight(l, " ") == c.out && i > 0 && strings.HasPrefix(lines[i-1], "$ pipefs cat ") {
								return true
							}
						}
						return false
					})
				})
			}
		})
	}
}

// writeRC writes a shell start-up file.
func writeRC(t *testing.T, name, format string, args ...any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, fmt.Appendf(nil, format, args...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// promptLine returns the last command line on the screen, after its "$ "
// prompt, trailing blanks removed.
func promptLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(lines[i], "$ "); ok {
			return strings.TrimRight(rest, " ")
		}
	}
	return ""
}
