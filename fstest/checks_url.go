package fstest

import (
	"bytes"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// urlMaxNames bounds the names whose URLs are opened anew in a big tree.
const urlMaxNames = 64

// checkURL checks, for every name the tree lists, that URL(name) is
// canonical (vfs.Parse gives it back unchanged), that Stat and ReadDir
// entries carry it in a *vfs.Origin, and that opening it as a pipeline of
// its own gives the same bytes (files) or the same listing (directories).
func checkURL(t *testing.T, k *kit) {
	found, err := walk(k.fsys)
	if err != nil {
		t.Errorf("fs.WalkDir(fsys, \".\") error = %v", err)
	}
	if got, want := k.fsys.Pipeline().String(), k.fsys.URL("."); got != want {
		t.Errorf("Pipeline().String() = %q, want URL(\".\") = %q", got, want)
	}
	names := slices.Sorted(maps.Keys(found))
	for i, name := range names {
		u := k.fsys.URL(name)
		if u == "" {
			t.Errorf("URL(%q) = \"\", want a pipeline", name)
			continue
		}
		p, err := vfs.Parse(u)
		if err != nil {
			t.Errorf("vfs.Parse(URL(%q) = %q) error = %v", name, u, err)
			continue
		}
		if s := p.String(); s != u {
			t.Errorf("vfs.Parse(URL(%q) = %q).String() = %q, want it unchanged (canonical)", name, u, s)
		}
		checkOrigin(t, k.fsys, name, u)
		// Opening every URL anew costs a pipeline each: a sample will do
		// in a big tree (the root, then every n-th name).
		if len(names) > urlMaxNames && i%(len(names)/urlMaxNames+1) != 0 {
			continue
		}
		if found[name] {
			checkDirURL(t, k, name, u)
		} else {
			checkFileURL(t, k, name, u)
		}
	}
}

// checkOrigin checks that Stat(name) and the entry of name in its
// directory's listing both carry an *vfs.Origin with URL u.
func checkOrigin(t *testing.T, fsys *vfs.FS, name, u string) {
	t.Helper()
	info, err := fsys.Stat(name)
	if err != nil {
		t.Errorf("Stat(%q) error = %v", name, err)
		return
	}
	if o, ok := info.Sys().(*vfs.Origin); !ok {
		t.Errorf("Stat(%q).Sys() = %T, want *vfs.Origin", name, info.Sys())
	} else if o.URL != u {
		t.Errorf("Stat(%q).Sys().(*vfs.Origin).URL = %q, want URL(%q) = %q", name, o.URL, name, u)
	}
	if name == "." {
		return
	}
	ents, err := fsys.ReadDir(path.Dir(name))
	if err != nil {
		t.Errorf("ReadDir(%q) error = %v", path.Dir(name), err)
		return
	}
	for _, e := range ents {
		if e.Name() != path.Base(name) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			t.Errorf("ReadDir(%q) entry %q Info() error = %v", path.Dir(name), e.Name(), err)
			return
		}
		if o, ok := info.Sys().(*vfs.Origin); !ok {
			t.Errorf("ReadDir(%q) entry %q Info().Sys() = %T, want *vfs.Origin", path.Dir(name), e.Name(), info.Sys())
		} else if o.URL != u {
			t.Errorf("ReadDir(%q) entry %q Info().Sys().(*vfs.Origin).URL = %q, want %q", path.Dir(name), e.Name(), o.URL, u)
		}
		return
	}
}

// checkFileURL opens u as a file (vfs.Open) and compares what it reads with
// what the FS reads.
func checkFileURL(t *testing.T, k *kit, name, u string) {
	t.Helper()
	want, err := k.fsys.ReadFile(name)
	if err != nil {
		t.Errorf("ReadFile(%q) error = %v", name, err)
		return
	}
	f, err := openFile(t.Context(), u, k.c.Options)
	if err != nil {
		t.Errorf("vfs.Open(URL(%q) = %q) error = %v", name, u, err)
		return
	}
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("vfs.Open(%q) then ReadAll = %s, %v; want %s (ReadFile(%q))", u, show(got), err, show(want), name)
	}
	if f.URL() != u {
		t.Errorf("vfs.Open(%q).URL() = %q, want it unchanged", u, f.URL())
	}
	if info, err := f.Stat(); err != nil {
		t.Errorf("vfs.Open(%q).Stat() error = %v", u, err)
	} else if o, ok := info.Sys().(*vfs.Origin); !ok || o.URL != u {
		t.Errorf("vfs.Open(%q).Stat().Sys() = %#v, want an *vfs.Origin with that URL", u, info.Sys())
	}
	if err := f.Close(); err != nil {
		t.Errorf("vfs.Open(%q).Close() = %v, want nil", u, err)
	}
}

// checkDirURL opens u with vfs.OpenFS and compares its listing with the
// FS's listing of name.
func checkDirURL(t *testing.T, k *kit, name, u string) {
	t.Helper()
	want, err := k.fsys.ReadDir(name)
	if err != nil {
		t.Errorf("ReadDir(%q) error = %v", name, err)
		return
	}
	g, err := vfs.OpenFS(t.Context(), u, k.c.Options)
	if err != nil {
		t.Errorf("vfs.OpenFS(URL(%q) = %q) error = %v", name, u, err)
		return
	}
	defer func() {
		if err := g.Close(); err != nil {
			t.Errorf("vfs.OpenFS(%q).Close() = %v, want nil", u, err)
		}
	}()
	if got := g.URL("."); got != u {
		t.Errorf("vfs.OpenFS(%q).URL(\".\") = %q, want it unchanged", u, got)
	}
	got, err := g.ReadDir(".")
	if err != nil {
		t.Errorf("vfs.OpenFS(%q).ReadDir(\".\") error = %v", u, err)
		return
	}
	if g, w := entryNames(got), entryNames(want); !slices.Equal(g, w) {
		t.Errorf("vfs.OpenFS(%q).ReadDir(\".\") = %q, want %q (ReadDir(%q))", u, g, w, name)
	}
}

func entryNames(ents []fs.DirEntry) []string {
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
	}
	return names
}
