package texttable

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrite(t *testing.T) {
	cols := []Column{
		{Header: "#"},
		{Header: "NAME", Elide: Middle, Min: 8},
		{Header: "SIZE", Right: true},
		{Header: "NOTE", Elide: End, Min: 4},
	}
	rows := [][]string{
		{"0", "file:/data/a-very-long-directory-name/run1.zip", "12K", "local file or directory"},
		{"1", "zip:", "-", "zip archive"},
		{"total", "", "12K"},
	}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{200, "" +
			"#      NAME                                            SIZE  NOTE\n" +
			"0      file:/data/a-very-long-directory-name/run1.zip   12K  local file or directory\n" +
			"1      zip:                                               -  zip archive\n" +
			"total                                                   12K\n"},
		// The note gives way first, down to its Min, then the name, in
		// the middle.
		{40, "" +
			"#      NAME                   SIZE  NOTE\n" +
			"0      file:/data…e/run1.zip   12K  loc…\n" +
			"1      zip:                      -  zip…\n" +
			"total                          12K\n"},
		// Nothing gives way below its Min.
		{10, "" +
			"#      NAME      SIZE  NOTE\n" +
			"0      fil….zip   12K  loc…\n" +
			"1      zip:         -  zip…\n" +
			"total             12K\n"},
	} {
		var b strings.Builder
		if err := Write(&b, cols, rows, tc.width); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("width %d:\n%s\nwant:\n%s", tc.width, b.String(), tc.want)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if n := utf8.RuneCountInString(l); tc.width >= 40 && n > tc.width {
				t.Errorf("width %d: line of %d runes: %q", tc.width, n, l)
			}
			if strings.HasSuffix(l, " ") {
				t.Errorf("trailing space: %q", l)
			}
		}
	}
}

func TestElide(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		e    Elide
		want string
	}{
		{"abcdef", 6, Middle, "abcdef"},
		{"abcdef", 5, Middle, "ab…ef"},
		{"abcdef", 4, Middle, "a…ef"},
		{"abcdef", 4, End, "abc…"},
		{"éèêëa", 3, End, "éè…"},
		{"abcdef", 2, Keep, "abcdef"},
	} {
		if got := elide(tc.s, tc.n, tc.e); got != tc.want {
			t.Errorf("elide(%q, %d, %d) = %q, want %q", tc.s, tc.n, tc.e, got, tc.want)
		}
	}
}
