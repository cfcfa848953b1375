package main

import (
	"os"
	"strings"
	"testing"
)

// shellWords splits a command line as sh does for the examples: words
// separated by spaces, single quotes keeping what they hold.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for _, c := range line {
		switch {
		case c == '\'':
			in, quoted = !in, true
		case c == ' ' && !in:
			if w.Len() > 0 || quoted {
				words = append(words, w.String())
			}
			w.Reset()
			quoted = false
		default:
			w.WriteRune(c)
		}
	}
	if w.Len() > 0 || quoted {
		words = append(words, w.String())
	}
	return words
}

// TestHelpExamples runs the Examples of ls, tree and stat from the
// module's root, where testdata/demo.zip is: each succeeds, and prints
// what the example shows after it, if anything ($PWD standing for the
// current directory). The flags the examples use are documented.
func TestHelpExamples(t *testing.T) {
	root, _ := newRoot()
	t.Chdir("../..")
	pwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ls", "tree", "stat"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		type example struct {
			args []string
			want []string
		}
		var exs []example
		for _, line := range strings.Split(cmd.Example, "\n") {
			line = strings.TrimPrefix(line, "  ")
			if rest, ok := strings.CutPrefix(line, "pipefs "); ok {
				exs = append(exs, example{args: shellWords(rest)})
			} else if len(exs) > 0 {
				exs[len(exs)-1].want = append(exs[len(exs)-1].want, strings.ReplaceAll(line, "$PWD", pwd))
			}
		}
		if len(exs) < 2 {
			t.Errorf("%s has %d examples, want at least 2", name, len(exs))
		}
		for _, ex := range exs {
			if ex.args[0] != name {
				t.Errorf("%s example runs %s", name, ex.args[0])
			}
			for _, a := range ex.args[1:] {
				if f, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "--") && cmd.Flags().Lookup(f) == nil && cmd.InheritedFlags().Lookup(f) == nil {
					t.Errorf("%s example uses the unknown flag %s", name, a)
				}
			}
			out := mustRun(t, ex.args...)
			if out == "" {
				t.Errorf("pipefs %q printed nothing", ex.args)
			}
			want := strings.TrimRight(strings.Join(ex.want, "\n"), "\n")
			if want != "" && strings.TrimRight(out, "\n\x00") != want {
				t.Errorf("pipefs %q:\n%s\nwant, as the example shows:\n%s", ex.args, out, want)
			}
		}
		// Every flag is in the help, with a usage line.
		for _, f := range []string{"deep", "depth"} {
			if name != "stat" && (cmd.Flags().Lookup(f) == nil || cmd.Flags().Lookup(f).Usage == "" || !strings.Contains(cmd.Long, "--"+f)) {
				t.Errorf("%s: --%s is not documented in its flags and Long help", name, f)
			}
		}
	}
}
