package listfmt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// quoteTests hold names and their quoting on a terminal, as GNU ls
// --quoting-style=shell-escape writes them.
var quoteTests = []struct{ name, tty string }{
	{"plain", "plain"},
	{"naïve-日本.zip", "naïve-日本.zip"},
	{"a b", "'a b'"},
	{"a'b", `"a'b"`},
	{"a' b", `"a' b"`},
	{"a'$b", `'a'\''$b'`},
	{"a$b", "'a$b'"},
	{"#x", "'#x'"},
	{"x#", "x#"},
	{"~x", "'~x'"},
	{"-x", "-x"},
	{"a%b+c,d:e@f]g{h}", "a%b+c,d:e@f]g{h}"},
	{"a=b", "'a=b'"},
	{"a\nb", `'a'$'\n''b'`},
	{"a\tb", `'a'$'\t''b'`},
	{"\x1b[31mred", `''$'\033''[31mred'`},
	{"a\x7fb", `'a'$'\177''b'`},
	{"a\x01b", `'a'$'\001''b'`},
	{"a\xffb", `'a'$'\377''b'`},
	{"a b\nc", `'a b'$'\n''c'`},
	{"\u0085", `''$'\302\205'`},
	{"", "''"},
}

func TestShellQuote(t *testing.T) {
	for _, tc := range quoteTests {
		if got := Name(tc.name, true); got != tc.tty {
			t.Errorf("Name(%q, tty) = %s, want %s", tc.name, got, tc.tty)
		}
		// Off a terminal, only names with unprintable bytes are quoted.
		want := tc.name
		if hasUnprintable(tc.name) {
			want = tc.tty
		}
		if got := Name(tc.name, false); got != want {
			t.Errorf("Name(%q, pipe) = %s, want %s", tc.name, got, want)
		}
	}
	// Deviations from GNU ls, on purpose: format characters are escaped.
	if got, want := ShellQuote("\u202eRLO"), `''$'\342\200\256''RLO'`; got != want {
		t.Errorf("ShellQuote(RLO) = %s, want %s", got, want)
	}
}

// TestShellQuoteAgainstGNU compares ShellQuote with GNU ls on real files.
func TestShellQuoteAgainstGNU(t *testing.T) {
	out, err := exec.Command("ls", "--version").Output()
	if err != nil || !strings.Contains(string(out), "GNU coreutils") {
		t.Skip("no GNU ls")
	}
	dir := t.TempDir()
	for _, tc := range quoteTests {
		if tc.name == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, tc.name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("ls", "--quoting-style=shell-escape", "-d", "--", tc.name)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ls %q: %v", tc.name, err)
		}
		if got, want := ShellQuote(tc.name), strings.TrimSuffix(string(out), "\n"); got != want {
			t.Errorf("ShellQuote(%q) = %s, GNU ls writes %s", tc.name, got, want)
		}
	}
}

// TestShellQuoteRoundTrip checks that bash reads each quoted name back as
// the name.
func TestShellQuoteRoundTrip(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	names := []string{"it's\n", "a'\"$`\\!b", "\x1b]0;title\x07", "x\x00y"[:1], "tab\there", "é\u202e", "a\xff\xfeb"}
	for _, tc := range quoteTests {
		names = append(names, tc.name)
	}
	for _, name := range names {
		q := ShellQuote(name)
		out, err := exec.Command(bash, "-c", "printf %s "+q).Output()
		if err != nil {
			t.Errorf("bash -c 'printf %%s %s': %v", q, err)
			continue
		}
		if string(out) != name {
			t.Errorf("bash reads %s as %q, want %q", q, out, name)
		}
	}
}

// FuzzShellQuote checks that a quoted name holds no byte that a terminal
// would act on, and that a name needing no quotes comes back unchanged.
func FuzzShellQuote(f *testing.F) {
	for _, tc := range quoteTests {
		f.Add(tc.name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		q := ShellQuote(name)
		if hasUnprintable(q) {
			t.Fatalf("ShellQuote(%q) = %q holds unprintable bytes", name, q)
		}
		if q == name && needsQuote(name) {
			t.Fatalf("ShellQuote(%q) left a name that needs quotes", name)
		}
		if !needsQuote(name) && q != name {
			t.Fatalf("ShellQuote(%q) = %q, want it unchanged", name, q)
		}
		if d := Name(name, false); hasUnprintable(d) {
			t.Fatalf("Name(%q, pipe) = %q holds unprintable bytes", name, d)
		}
	})
}
