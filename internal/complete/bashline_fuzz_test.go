package complete

import (
	"strings"
	"testing"
)

// FuzzBashLine reads arbitrary command lines and names: SplitLine and
// ReadlineStart never panic, ReadlineStart stays within the line, and
// a name quoted by QuoteFor for each quoting reads back as the name.
func FuzzBashLine(f *testing.F) {
	for _, s := range []string{
		"pipefs cat 'a.zip|zip:d", `pipefs cat a.zip\|zip:`, `p "a b`, `p $'x\ty\'z'`,
		"a; b c", "q'$(touch x)'", `d"$(touch x)"`, "!!touch x", "a\nrm -rf x", "b\tc", "~/x", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		SplitLine(s)
		if i := ReadlineStart(s, bashWordbreaks); i < 0 || i > len(s) {
			t.Fatalf("ReadlineStart(%q) = %d", s, i)
		}
		if strings.ContainsRune(s, 0) {
			return // no shell word holds a NUL
		}
		for _, open := range []string{"", "'", `"`} {
			var quote byte
			if open != "" {
				quote = open[0]
			}
			l := SplitLine("p " + open + QuoteFor(quote, s))
			if len(l.Words) != 2 || l.Words[1] != s {
				t.Fatalf("QuoteFor(%q, %q) reads back as %q", open, s, l.Words)
			}
		}
	})
}
