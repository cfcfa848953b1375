package fstest

import (
	"bytes"
	"fmt"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// closeMaxFiles bounds the files the Close check opens in a big tree.
const closeMaxFiles = 16

// checkClose checks that a closed file or directory fails every method
// with fs.ErrClosed, that closing one does not disturb the FS, and that an
// FS opened anew closes once.
func checkClose(t *testing.T, k *kit) {
	for _, name := range k.sampleFiles(closeMaxFiles) {
		f, err := k.fsys.OpenFile(name)
		if err != nil {
			t.Errorf("OpenFile(%q) error = %v", name, err)
			continue
		}
		if err := f.Close(); err != nil {
			t.Errorf("OpenFile(%q).Close() = %v, want nil", name, err)
		}
		call := func(m string) string { return fmt.Sprintf("after Close, OpenFile(%q).%s", name, m) }
		wantIs(t, call("Close()"), f.Close(), fs.ErrClosed)
		_, err = f.Read(make([]byte, 1))
		wantIs(t, call("Read"), err, fs.ErrClosed)
		_, err = f.ReadAt(make([]byte, 1), 0)
		wantIs(t, call("ReadAt"), err, fs.ErrClosed)
		_, err = f.Seek(0, 0)
		wantIs(t, call("Seek"), err, fs.ErrClosed)
		_, err = f.Stat()
		wantIs(t, call("Stat"), err, fs.ErrClosed)
		if got, err := k.fsys.ReadFile(name); err != nil || !bytes.Equal(got, k.c.Files[name]) {
			t.Errorf("ReadFile(%q) after closing a file of it = %s, %v; want %s", name, show(got), err, show(k.c.Files[name]))
		}
	}
	// The root directory: directories share their code.
	d, err := k.fsys.OpenFile(".")
	if err != nil {
		t.Errorf("OpenFile(\".\") error = %v", err)
	} else {
		if err := d.Close(); err != nil {
			t.Errorf("OpenFile(\".\").Close() = %v, want nil", err)
		}
		_, err = d.ReadDir(-1)
		wantIs(t, "after Close, OpenFile(\".\").ReadDir(-1)", err, fs.ErrClosed)
		_, err = d.Stat()
		wantIs(t, "after Close, OpenFile(\".\").Stat()", err, fs.ErrClosed)
	}

	g, err := vfs.OpenFS(t.Context(), k.c.Pipeline, k.c.Options)
	if err != nil {
		t.Fatalf("vfs.OpenFS(%q) error = %v", k.c.Pipeline, err)
	}
	if len(k.files) > 0 {
		if _, err := g.ReadFile(k.files[0]); err != nil {
			t.Errorf("ReadFile(%q) error = %v", k.files[0], err)
		}
	}
	if err := g.Close(); err != nil {
		t.Errorf("vfs.OpenFS(%q).Close() = %v, want nil", k.c.Pipeline, err)
	}
	wantIs(t, fmt.Sprintf("vfs.OpenFS(%q).Close() twice", k.c.Pipeline), g.Close(), fs.ErrClosed)
}
