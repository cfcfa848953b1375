package fstest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// missingName is a name that no tree under test holds.
const missingName = "pipefs-fstest-missing"

// invalidNames are not fs.ValidPath names; every method must reject them
// with fs.ErrInvalid before touching the tree.
var invalidNames = []string{"", "/x", "x/", "../x", "x/..", "x/../y", "./x", "x/.", "a//b", "..", "/"}

// fsOp is one fs.FS method, called by name, with the Op its errors carry.
type fsOp struct {
	op   string
	call func(fsys *vfs.FS, name string) error
}

// fsOps are the methods whose errors the kit checks, with the op names of
// io/fs and os: "open", "stat", "readdir", "readfile" (as os.DirFS reports
// invalid names to ReadDir and ReadFile) and "sub" (as fs.Sub).
var fsOps = []fsOp{
	{"open", func(fsys *vfs.FS, name string) error { _, err := fsys.Open(name); return err }},
	{"stat", func(fsys *vfs.FS, name string) error { _, err := fsys.Stat(name); return err }},
	{"readdir", func(fsys *vfs.FS, name string) error { _, err := fsys.ReadDir(name); return err }},
	{"readfile", func(fsys *vfs.FS, name string) error { _, err := fsys.ReadFile(name); return err }},
	{"sub", func(fsys *vfs.FS, name string) error { _, err := fsys.Sub(name); return err }},
}

// callName formats the call of op on name for messages.
func callName(op, name string) string {
	m := map[string]string{"open": "Open", "stat": "Stat", "readdir": "ReadDir", "readfile": "ReadFile", "sub": "Sub"}[op]
	return fmt.Sprintf("%s(%q)", m, name)
}

// checkErrors checks the shape of errors: missing names, invalid names,
// and directories and files used as the other kind.
func checkErrors(t *testing.T, k *kit) {
	k.part(t, "errors", "missing", func(t *testing.T) {
		names := []string{missingName, missingName + "/x"}
		for _, d := range k.dirs {
			if d != "." {
				names = append(names, d+"/"+missingName)
				break
			}
		}
		for _, name := range names {
			for _, o := range fsOps {
				checkMissing(t, k.fsys, o, name)
			}
		}
	})
	k.part(t, "errors", "under-file", func(t *testing.T) {
		// A name below a regular file does not exist, whatever the
		// backend says (ENOTDIR for a local file).
		for _, name := range k.sampleFiles(2) {
			for _, o := range fsOps {
				checkMissing(t, k.fsys, o, name+"/"+missingName)
			}
		}
	})
	k.part(t, "errors", "invalid", func(t *testing.T) {
		for _, name := range invalidNames {
			for _, o := range fsOps {
				wantPathError(t, callName(o.op, name), o.call(k.fsys, name), o.op, name, fs.ErrInvalid)
			}
			if u := k.fsys.URL(name); u != "" {
				t.Errorf("URL(%q) = %q, want \"\" for an invalid name", name, u)
			}
		}
	})
	k.part(t, "errors", "dir-as-file", func(t *testing.T) {
		for _, dir := range k.dirs {
			err := fsOps[3].call(k.fsys, dir)
			wantPathError(t, callName("readfile", dir), err, "readfile", dir, vfs.ErrIsDir)
			f, err := k.fsys.OpenFile(dir)
			if err != nil {
				t.Errorf("OpenFile(%q) error = %v", dir, err)
				continue
			}
			buf := make([]byte, 8)
			if n, err := f.ReadAt(buf, 0); n != 0 || err == nil || err == io.EOF {
				t.Errorf("OpenFile(%q).ReadAt(8 bytes, 0) = %d, %v; want 0 and an error matching vfs.ErrIsDir", dir, n, err)
			} else {
				wantIs(t, fmt.Sprintf("OpenFile(%q).ReadAt", dir), err, vfs.ErrIsDir)
			}
			if n, err := f.Read(buf); n != 0 || err == nil || err == io.EOF {
				t.Errorf("OpenFile(%q).Read(8 bytes) = %d, %v; want 0 and an error matching vfs.ErrIsDir", dir, n, err)
			} else {
				wantIs(t, fmt.Sprintf("OpenFile(%q).Read", dir), err, vfs.ErrIsDir)
			}
			f.Close()
		}
	})
	k.part(t, "errors", "file-as-dir", func(t *testing.T) {
		for _, name := range k.sampleFiles(8) {
			wantPathError(t, callName("readdir", name), fsOps[2].call(k.fsys, name), "readdir", name, vfs.ErrNotDir)
			wantPathError(t, callName("sub", name), fsOps[4].call(k.fsys, name), "sub", name, vfs.ErrNotDir)
			f, err := k.fsys.OpenFile(name)
			if err != nil {
				t.Errorf("OpenFile(%q) error = %v", name, err)
				continue
			}
			if ents, err := f.ReadDir(-1); err == nil {
				t.Errorf("OpenFile(%q).ReadDir(-1) = %d entries, nil; want an error matching vfs.ErrNotDir", name, len(ents))
			} else {
				wantIs(t, fmt.Sprintf("OpenFile(%q).ReadDir(-1)", name), err, vfs.ErrNotDir)
			}
			f.Close()
		}
	})
}

// checkMissing checks the error of op on a missing name: a *fs.PathError
// with the op and the name, matching fs.ErrNotExist, whose cause is a
// *vfs.StageError naming the innermost sub-URL joined with the name; the
// error text names that sub-URL too, in its display form (vfs.DisplayText).
func checkMissing(t *testing.T, fsys *vfs.FS, o fsOp, name string) {
	t.Helper()
	call := callName(o.op, name)
	err := o.call(fsys, name)
	if wantPathError(t, call, err, o.op, name, fs.ErrNotExist) == nil {
		return
	}
	var se *vfs.StageError
	if !errors.As(err, &se) {
		t.Errorf("%s error = %v, want a *vfs.StageError inside", call, err)
		return
	}
	u := fsys.URL(name)
	p, perr := vfs.Parse(u)
	if perr != nil {
		t.Errorf("vfs.Parse(URL(%q) = %q) error = %v", name, u, perr)
		return
	}
	want := p[len(p)-1].String()
	if se.URL != want || se.Index != len(p)-1 {
		t.Errorf("%s StageError = {Index: %d, URL: %q}, want {Index: %d, URL: %q}", call, se.Index, se.URL, len(p)-1, want)
	}
	if shown := vfs.DisplayText(want); !strings.Contains(err.Error(), shown) {
		t.Errorf("%s error text %q does not name the sub-URL %q (canonical %q)", call, err.Error(), shown, want)
	}
	if !strings.Contains(err.Error(), name) {
		t.Errorf("%s error text %q does not name %q", call, err.Error(), name)
	}
}
