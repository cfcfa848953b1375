package complete

import (
	"slices"
	"testing"
)

// bashWordbreaks is bash's default COMP_WORDBREAKS.
const bashWordbreaks = " \t\n\"'><=;|&(:"

// TestSplitLine checks that a line is read as bash reads it.
func TestSplitLine(t *testing.T) {
	tests := []struct {
		line  string
		words []string
		quote byte
	}{
		{"a b  c", []string{"a", "b", "c"}, 0},
		{"a b ", []string{"a", "b", ""}, 0},
		{`a 'b c' d\ e "f\"g\\h\x"`, []string{"a", "b c", "d e", `f"g\h\x`}, 0},
		{`a 'b|c`, []string{"a", "b|c"}, '\''},
		{`a "b'c`, []string{"a", "b'c"}, '"'},
		{`a $'x\ty\'z'`, []string{"a", "x\ty'z"}, 0},
		{`a b\|c:d`, []string{"a", "b|c:d"}, 0},
		{"a; b c", []string{"b", "c"}, 0},
		{"a 'b'c\"d\"", []string{"a", "bcd"}, 0},
		{"a ~/b '~/c' d~/", []string{"a", "/home/u/b", "~/c", "d~/"}, 0},
	}
	t.Setenv("HOME", "/home/u/")
	for _, tc := range tests {
		got := SplitLine(tc.line)
		if !slices.Equal(got.Words, tc.words) || got.Quote != tc.quote {
			t.Errorf("SplitLine(%q) = %q, quote %q; want %q, %q", tc.line, got.Words, got.Quote, tc.words, tc.quote)
		}
	}
}

// TestReadlineStart checks where readline starts the word it completes.
func TestReadlineStart(t *testing.T) {
	tests := []struct{ line, word string }{
		{"p cat ab", "ab"},
		{"p cat a:b", "b"},
		{`p cat a\|b`, `a\|b`},
		{`p cat a\:b`, `a\:b`},
		{`p cat a\ b`, `a\ b`},
		{"p cat 'a:b|c", "a:b|c"},
		{`p cat "a b`, "a b"},
		{"p cat 'a:b'c", "'a:b'c"},
		{"p cat ", ""},
		{"p cat a=b", "b"},
	}
	for _, tc := range tests {
		start := ReadlineStart(tc.line, bashWordbreaks)
		if got := tc.line[start:]; got != tc.word {
			t.Errorf("ReadlineStart(%q) leaves %q, want %q", tc.line, got, tc.word)
		}
	}
}
