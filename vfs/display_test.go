package vfs_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// TestDisplay checks the display form: the escapes of characters that the
// grammar never allows raw are decoded, those the grammar needs and those
// that do not print are kept, and the canonical form is unchanged.
func TestDisplay(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"file:/d/a.zip|zip:odd%20names/f.txt", "file:/d/a.zip|zip:odd names/f.txt"},
		{"file:/d/%C3%A9t%C3%A9.zip|zip:%e6%97%a5%e6%9c%ac.txt", "file:/d/été.zip|zip:日本.txt"},
		{"file:/d/a.zip|zip:%F0%9F%93%81%20x", "file:/d/a.zip|zip:📁 x"},
		// The grammar's characters stay escaped: "|", "#", "?", "%", "/", "[", "]".
		{"file:/d/a.zip|zip:a%7Cb%23c%3Fd%25e%2Ff%5Bg%5D", "file:/d/a.zip|zip:a%7Cb%23c%3Fd%25e%2Ff%5Bg%5D"},
		// "%2541" is "%41", not "A": the escaped "%" stays escaped.
		{"file:/d/%2541", "file:/d/%2541"},
		// Unreserved and allowed characters keep their escape: "%2E%2E" is not "..".
		{"file:/d/%2E%2E/%41%3D", "file:/d/%2E%2E/%41%3D"},
		{"file:/d/%22q%22%3Ca%3E%5C%5E%60%7B%7D", "file:/d/\"q\"<a>\\^`{}"},
		// Control characters, invalid UTF-8, NBSP and a bidi override stay escaped.
		{"file:/d/a%0Ab%00c%7F", "file:/d/a%0Ab%00c%7F"},
		{"file:/d/%C3%28%FF%E6%97", "file:/d/%C3%28%FF%E6%97"},
		{"file:/d/a%C2%A0b%E2%80%AEc", "file:/d/a%C2%A0b%E2%80%AEc"},
		{"https://h/x?q=a%20b&r=%7C", "https://h/x?q=a b&r=%7C"},
	} {
		p, err := vfs.Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if got := p.Display(); got != c.want {
			t.Errorf("Parse(%q).Display() = %q, want %q", c.in, got, c.want)
		}
		if p.String() != c.in {
			t.Errorf("Parse(%q).String() = %q", c.in, p.String())
		}
		last := p[len(p)-1]
		if got, want := last.Display(), vfs.DisplayText(last.String()); got != want {
			t.Errorf("SubURL.Display() = %q, DisplayText of its text %q", got, want)
		}
	}
	// Text that is not well formed is shown as it is where it is not.
	for in, want := range map[string]string{"a%": "a%", "a%2": "a%2", "a%zz%20": "a%zz ", "%E6%97": "%E6%97"} {
		if got := vfs.DisplayText(in); got != want {
			t.Errorf("DisplayText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStageErrorDisplay opens missing members whose names hold spaces,
// non-ASCII characters, "%", "|", "#" and "?": the StageError's message
// names the sub-URL as typed (decoded where that is unambiguous), its URL
// field and the PathError's path stay canonical, and errors.Is still sees
// the cause.
func TestStageErrorDisplay(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	name := filepath.Join(dir, "a b.zip")
	if err := os.WriteFile(name, fstest.ZipBytes(map[string][]byte{"x.txt": []byte("x")}, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := vfs.FromPath(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ member, shown string }{
		{"odd names/f.txt", "zip:odd names/f.txt"},
		{"été/日本.txt", "zip:été/日本.txt"},
		{"100%/a|b#c?d.txt", "zip:100%25/a%7Cb%23c%3Fd.txt"},
	} {
		u := vfs.MustParse("file:/a|zip:")[1].Join(c.member)
		p := root.Append(u)
		_, err := vfs.Open(ctx, p.String(), nil)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Open(%q) = %v, want fs.ErrNotExist", p, err)
		}
		var se *vfs.StageError
		var pe *fs.PathError
		if !errors.As(err, &se) || !errors.As(err, &pe) {
			t.Fatalf("Open(%q) = %#v, want a StageError in a PathError", p, err)
		}
		if se.URL != u.String() || se.Index != 1 || pe.Path != p.String() {
			t.Errorf("StageError URL %q index %d, PathError path %q; want the canonical %q at 1 in %q", se.URL, se.Index, pe.Path, u, p)
		}
		if want := `sub-URL 1 "` + c.shown + `": `; !strings.HasPrefix(se.Error(), want) {
			t.Errorf("StageError message %q, want it to start with %q", se.Error(), want)
		}
		if !strings.Contains(err.Error(), p.String()) {
			t.Errorf("message %q does not hold the canonical pipeline %q", err, p)
		}
	}
}

// FuzzDisplayText checks that the display form never panics, never adds
// a character the grammar gives a meaning to ("|", "#", "?", "/", "%"),
// nor a control character, and is no longer than the text.
func FuzzDisplayText(f *testing.F) {
	for _, s := range []string{"zip:odd%20names", "file:/%C3%A9%7C%23", "%E6%97%a5", "%", "%2", "%C2%A0%E2%80%AE", "a%00%7F"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := vfs.DisplayText(s)
		if len(d) > len(s) {
			t.Fatalf("DisplayText(%q) = %q is longer", s, d)
		}
		if strings.Count(d, "%") > strings.Count(s, "%") {
			t.Fatalf("DisplayText(%q) = %q adds a %%", s, d)
		}
		for _, c := range "|#?/\x00\n\r\t\x1b\x7f" {
			if strings.Count(d, string(c)) != strings.Count(s, string(c)) {
				t.Fatalf("DisplayText(%q) = %q changes the count of %q", s, d, c)
			}
		}
	})
}
