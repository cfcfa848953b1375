package fstest

import (
	"bytes"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"testing"
)

// checkContents reads every expected file three ways (ReadFile, Open and
// Read, fs.ReadFile through the ReadFileFS), checks Stat against the
// expected size and kind, and, for an exhaustive case, that the tree lists
// nothing more than expected.
func checkContents(t *testing.T, k *kit) {
	for _, name := range k.files {
		want := k.c.Files[name]
		got, err := k.fsys.ReadFile(name)
		if err != nil {
			t.Errorf("ReadFile(%q) error = %v", name, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("ReadFile(%q) = %s, want %s", name, show(got), show(want))
		}
		if got, err := fs.ReadFile(k.fsys, name); err != nil {
			t.Errorf("fs.ReadFile(fsys, %q) error = %v", name, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("fs.ReadFile(fsys, %q) = %s, want %s", name, show(got), show(want))
		}
		checkOpenRead(t, k, name, want)

		info, err := k.fsys.Stat(name)
		if err != nil {
			t.Errorf("Stat(%q) error = %v", name, err)
			continue
		}
		if !info.Mode().IsRegular() {
			t.Errorf("Stat(%q).Mode() = %v, want a regular file", name, info.Mode())
		}
		if info.Size() != int64(len(want)) {
			t.Errorf("Stat(%q).Size() = %d, want %d", name, info.Size(), len(want))
		}
		if info.Name() != path.Base(name) {
			t.Errorf("Stat(%q).Name() = %q, want %q", name, info.Name(), path.Base(name))
		}
	}
	for _, name := range k.dirs {
		info, err := k.fsys.Stat(name)
		if err != nil {
			t.Errorf("Stat(%q) error = %v, want a directory", name, err)
			continue
		}
		if !info.IsDir() {
			t.Errorf("Stat(%q).IsDir() = false, want true (mode %v)", name, info.Mode())
		}
		checkListing(t, k, name)
	}
	if !k.c.Exhaustive {
		return
	}
	found, err := walk(k.fsys)
	if err != nil {
		t.Errorf("fs.WalkDir(fsys, \".\") error = %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(found)) {
		_, isFile := k.c.Files[name]
		isDir := slices.Contains(k.dirs, name)
		switch {
		case !isFile && !isDir:
			t.Errorf("the tree lists %q, which the exhaustive case does not expect", name)
		case isFile && found[name]:
			t.Errorf("the tree lists %q as a directory, want a regular file", name)
		case isDir && !found[name]:
			t.Errorf("the tree lists %q as a file, want a directory", name)
		}
	}
	for _, list := range [][]string{k.files, k.dirs} {
		for _, name := range list {
			if _, ok := found[name]; !ok {
				t.Errorf("fs.WalkDir(fsys, \".\") did not visit %q", name)
			}
		}
	}
}

// checkOpenRead reads name through Open and Read in small pieces.
func checkOpenRead(t *testing.T, k *kit, name string, want []byte) {
	t.Helper()
	f, err := k.fsys.Open(name)
	if err != nil {
		t.Errorf("Open(%q) error = %v", name, err)
		return
	}
	defer f.Close()
	var got []byte
	buf := make([]byte, 1000)
	for {
		n, err := f.Read(buf)
		if n < 0 || n > len(buf) {
			t.Errorf("Open(%q).Read(%d bytes) = %d", name, len(buf), n)
			return
		}
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("Open(%q).Read after %d bytes: error = %v", name, len(got), err)
			return
		}
		if n == 0 {
			t.Errorf("Open(%q).Read after %d bytes = 0, nil (no progress)", name, len(got))
			return
		}
		if len(got) > len(want)+len(buf) {
			break
		}
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Open(%q) then Read to EOF = %s, want %s", name, show(got), show(want))
	}
}

// checkListing checks that ReadDir of the expected directory dir lists
// every expected child, with entries whose Info agrees with Stat (but for
// the size of a symbolic link's entry, which is the link's).
func checkListing(t *testing.T, k *kit, dir string) {
	t.Helper()
	ents, err := k.fsys.ReadDir(dir)
	if err != nil {
		t.Errorf("ReadDir(%q) error = %v", dir, err)
		return
	}
	listed := map[string]fs.DirEntry{}
	for _, e := range ents {
		listed[e.Name()] = e
	}
	for _, list := range [][]string{k.files, k.dirs} {
		for _, name := range list {
			if name == "." || path.Dir(name) != dir {
				continue
			}
			e, ok := listed[path.Base(name)]
			if !ok {
				t.Errorf("ReadDir(%q) does not list %q", dir, path.Base(name))
				continue
			}
			want, isFile := k.c.Files[name]
			if e.IsDir() == isFile {
				t.Errorf("ReadDir(%q) entry %q IsDir() = %v, want %v", dir, e.Name(), e.IsDir(), !isFile)
			}
			info, err := e.Info()
			if err != nil {
				t.Errorf("ReadDir(%q) entry %q Info() error = %v", dir, e.Name(), err)
				continue
			}
			// The entry of a symbolic link describes the link itself, as
			// fs.DirEntry says, not the file it leads to.
			if isFile && e.Type()&fs.ModeSymlink == 0 && info.Size() != int64(len(want)) {
				t.Errorf("ReadDir(%q) entry %q Info().Size() = %d, want %d", dir, e.Name(), info.Size(), len(want))
			}
		}
	}
}
