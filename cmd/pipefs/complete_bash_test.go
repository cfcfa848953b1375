package main

import (
	"slices"
	"strings"
	"testing"
)

// bashWordbreaks is bash's default COMP_WORDBREAKS.
const bashWordbreaks = " \t\n\"'><=;|&(:"

// TestCompleteBashLine checks what __complete-bash prints for a command
// line: the text that replaces readline's word, quoted as the line
// quotes it.
func TestCompleteBashLine(t *testing.T) {
	dir := t.TempDir()
	files := layerFiles(t)
	files["with space/file one.txt"] = []byte("one\n")
	files["with space/a|b#c?d%e.txt"] = []byte("odd\n")
	files["cost$1 'q'.txt"] = []byte("cost\n")
	writeFiles(t, dir, files)
	t.Chdir(dir)
	tests := []struct {
		line string
		want []string
	}{
		// The quoted form: the word starts after the quote.
		{"pipefs cat 'outer.zip|zip:", []string{"outer.zip|zip:docs/", "outer.zip|zip:inner.zip", "outer.zip|zip:inner.zip|zip:"}},
		{`pipefs cat "outer.zip|zip:docs/`, []string{"outer.zip|zip:docs/a%7Cb.md", "outer.zip|zip:docs/guide.md"}},
		// A lone adapter in a quote: a second candidate keeps the quote open.
		{"pipefs cat 'outer.zip|zip:inner.zip|", []string{"outer.zip|zip:inner.zip|zip:", "outer.zip|zip:inner.zip|zip: "}},
		// A lone file in a quote: readline closes the quote.
		{"pipefs cat 'with space/file", []string{"with space/file one.txt"}},
		{"pipefs cat 'cost", []string{`cost$1 '\''q'\''.txt`}},
		{`pipefs cat "cost`, []string{`cost\$1 'q'.txt`}},
		// The escaped form: the word starts after the last ":".
		{`pipefs cat outer.zip\|zip:inner.z`, []string{"inner.zip", `inner.zip\|zip:`}},
		{`pipefs cat outer.zip\|zip:inner.zip\|zip:h`, []string{"hello.txt "}},
		{`pipefs cat a.tar.gz\|`, []string{"a.tar.gz\\|gzip:", "a.tar.gz\\|gzip:\\|pipefs.tar:"}},
		// Blanks: escaped, and a finished name gets a space.
		{`pipefs cat with`, []string{`with\ space/`}},
		{`pipefs cat with\ space/file`, []string{`with\ space/file\ one.txt `}},
		{`pipefs cat with\ space/a`, []string{`with\ space/a%7Cb%23c%3Fd%25e.txt `}},
		{`pipefs cat cost`, []string{`cost\$1\ \'q\'.txt `}},
		// Commands and flags.
		{"pipefs ca", []string{"cat "}},
		{"pipefs cat --no-det", []string{"--no-detect "}},
		// The destination of cp is a local path.
		{"pipefs cp outer.zip w", []string{`with\ space/`}},
		// After a pipe, the line is another command's.
		{"pipefs cat outer.zip | pipefs ca", []string{"cat "}},
		{"pipefs cat nothing/", nil},
	}
	for _, tc := range tests {
		r := runCLI(t, completeBashCmd, bashWordbreaks, tc.line)
		var got []string
		if r.stdout != "" {
			got = strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		}
		if r.code != 0 || r.stderr != "" || !slices.Equal(got, tc.want) {
			t.Errorf("complete the line %s: exit %d, stderr %q\ngot  %q\nwant %q", tc.line, r.code, r.stderr, got, tc.want)
		}
	}
}

// TestCompletionCommand checks the completion command: a script for each
// shell that registers pipefs's completion, help that says how to install
// each, and a usage error for an unknown shell.
func TestCompletionCommand(t *testing.T) {
	for shell, want := range map[string]string{
		"bash":       "complete -o nospace -F _pipefs_complete pipefs",
		"zsh":        "compdef _pipefs pipefs",
		"fish":       "complete -c pipefs -f -a '(__pipefs_complete)'",
		"powershell": "Register-ArgumentCompleter",
	} {
		if out := mustRun(t, "completion", shell); !strings.Contains(out, want) {
			t.Errorf("completion %s does not hold %q:\n%s", shell, want, out)
		}
	}
	help := mustRun(t, "completion", "--help")
	for _, want := range []string{"source <(pipefs completion bash)", "_pipefs", "~/.config/fish/completions/pipefs.fish", "PIPEFS_COMPLETE_TIMEOUT"} {
		if !strings.Contains(help, want) {
			t.Errorf("completion --help does not say %q", want)
		}
	}
	if r := runCLI(t, "completion", "tcsh"); r.code != 2 || !strings.Contains(r.stderr, `unknown shell "tcsh"`) {
		t.Errorf("completion tcsh: exit %d, stderr %q", r.code, r.stderr)
	}
}
