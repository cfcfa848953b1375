package copier

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// treeItems returns the entries of fsys as walkTree lists them.
func treeItems(t *testing.T, fsys fs.FS) []item {
	t.Helper()
	var items []item
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		items = append(items, item{name: name, info: info})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// TestResumesInDest checks each rule that decides where a tree resumed
// into an existing directory goes, in order.
func TestResumesInDest(t *testing.T) {
	const url = "file:/d/run.zip|zip:run1/"
	// The tree has a top-level directory named as its copy.
	items := treeItems(t, fstest.MapFS{
		"a.txt":           {Data: []byte("a")},
		"run1/inner.txt":  {Data: []byte("i")},
		"sub/b.txt":       {Data: []byte("b")},
		"link":            {Data: []byte("a.txt"), Mode: fs.ModeSymlink},
		"run1/deep/x.txt": {Data: []byte("x")},
	})
	for _, tc := range []struct {
		name   string
		files  []string // below DEST; a name ending in "/" is a directory
		record string   // where the tree's record is, below DEST's parent
		inDest bool
	}{
		{name: "empty", inDest: false},
		{name: "unrelated", files: []string{"other.txt", "a.txt"}, inDest: false},
		{name: "interrupted", files: []string{"sub/", "a.txt.pipefs-partial", "a.txt.pipefs-source"}, inDest: true},
		{name: "complete", files: []string{"a.txt", "sub/b.txt", "run1/inner.txt", "run1/deep/x.txt"}, inDest: true},
		{name: "wrong type", files: []string{"a.txt/"}, inDest: false},
		{name: "partial of a directory", files: []string{"sub.pipefs-partial"}, inDest: false},
		// DEST/NAME holds the top level: an earlier copy into DEST.
		{name: "copy inside", files: []string{"run1/a.txt", "run1/sub/", "run1/run1/"}, inDest: false},
		// DEST/NAME is the tree's own directory; DEST holds the copy.
		{name: "own directory", files: []string{"run1/inner.txt", "a.txt"}, inDest: true},
		{name: "record inside", files: []string{"a.txt", "sub/"}, record: "dest/run1.pipefs-source", inDest: false},
		{name: "record beside", files: []string{"other.txt"}, record: "dest.pipefs-source", inDest: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dest := filepath.Join(base, "dest")
			if err := os.Mkdir(dest, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.files {
				p := filepath.Join(dest, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if f[len(f)-1] == '/' {
					if err := os.MkdirAll(p, 0o755); err != nil {
						t.Fatal(err)
					}
				} else if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.record != "" {
				if err := writeTreeRecord(filepath.Join(base, tc.record), url); err != nil {
					t.Fatal(err)
				}
			}
			if got := resumesInDest(dest, "run1", url, items); got != tc.inDest {
				t.Errorf("resumesInDest = %v, want %v", got, tc.inDest)
			}
		})
	}
}

// TestTreeRecord checks that a record names one tree, and that a file's
// record is not read as a tree's.
func TestTreeRecord(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "run1.pipefs-source")
	if recordsTree(name, "file:/a.zip|zip:") {
		t.Error("a missing record records a tree")
	}
	if err := writeTreeRecord(name, "file:/a.zip|zip:"); err != nil {
		t.Fatal(err)
	}
	if !recordsTree(name, "file:/a.zip|zip:") || recordsTree(name, "file:/b.zip|zip:") {
		t.Error("the record does not name exactly its tree")
	}
	if err := os.WriteFile(name, []byte(`{"url":"file:/a.zip|zip:","size":3}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if recordsTree(name, "file:/a.zip|zip:") {
		t.Error("a file's record is read as a tree's")
	}
	if got := treeRecordPath("/"); got != "" {
		t.Errorf("treeRecordPath(/) = %q, want none", got)
	}
	if got, want := treeRecordPath(filepath.Join(dir, "x", ".")), filepath.Join(dir, "x.pipefs-source"); got != want {
		t.Errorf("treeRecordPath = %q, want %q", got, want)
	}
}
