package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// TestErrorDisplayNames runs cat on missing members whose names hold
// spaces, non-ASCII characters, "%", "|", "#" and "?": the error names
// the pipeline and the sub-URL as people type them where that is
// unambiguous, with the canonical pipeline alongside, and keeps the
// escapes the grammar needs.
func TestErrorDisplayNames(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "my data.zip")
	if err := os.WriteFile(name, fstest.ZipBytes(map[string][]byte{"x.txt": []byte("x")}, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := vfs.FromPath(name)
	if err != nil {
		t.Fatal(err)
	}
	shownRoot := "file:" + filepath.ToSlash(name)
	for _, c := range []struct{ member, shown string }{
		{"odd names/f.txt", "zip:odd names/f.txt"},
		{"été/日本 1.txt", "zip:été/日本 1.txt"},
		{"100%/a|b#c?d.txt", "zip:100%25/a%7Cb%23c%3Fd.txt"},
	} {
		u := vfs.MustParse("file:/a|zip:")[1].Join(c.member)
		canonical := root.Append(u).String()
		r := runCLI(t, "cat", canonical)
		want := "pipefs: open " + shownRoot + "|" + c.shown + " (canonical " + canonical + "): " +
			`sub-URL 1 "` + c.shown + `": file does not exist` + "\n"
		if r.code != exitError || r.stderr != want {
			t.Errorf("cat of missing %q: exit %d, stderr\n%q\nwant\n%q", c.member, r.code, r.stderr, want)
		}
	}
	// A pipeline that displays as it is written is named once.
	r := runCLI(t, "cat", "file:"+filepath.ToSlash(filepath.Join(dir, "none.zip"))+"|zip:a.txt")
	if strings.Contains(r.stderr, "canonical") || !strings.Contains(r.stderr, `sub-URL 0 "file:`) {
		t.Errorf("cat of a missing plain name: stderr %q", r.stderr)
	}
	// The path of a name in a tree is shown as it is, even when it
	// parses as a pipeline.
	pe := &fs.PathError{Op: "open", Path: "c:a%20b", Err: fs.ErrNotExist}
	if got := message(pe); got != pe.Error() {
		t.Errorf("message of %q = %q", pe, got)
	}
}
