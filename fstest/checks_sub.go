package fstest

import (
	"bytes"
	"io/fs"
	"path"
	"strings"
	"testing"
	stdfstest "testing/fstest"

	"github.com/pipefs/pipefs/vfs"
)

// subMaxDirs bounds the directories the Sub check visits in a big tree.
const subMaxDirs = 16

// checkSub checks Sub for every expected directory (a sample of a big
// tree): the result passes testing/fstest.TestFS with the expected names
// below the directory, reads the same bytes, has the URLs of the parent's
// names, and reports errors with names in its own namespace.
func checkSub(t *testing.T, k *kit) {
	if sub, err := k.fsys.Sub("."); err != nil {
		t.Errorf("Sub(\".\") error = %v", err)
	} else if g, ok := sub.(*vfs.FS); !ok || g.URL(".") != k.fsys.URL(".") {
		t.Errorf("Sub(\".\") = %T with URL(\".\") != %q", sub, k.fsys.URL("."))
	}
	n := 0
	for _, dir := range k.dirs {
		if dir == "." {
			continue
		}
		if n++; n > subMaxDirs {
			break
		}
		t.Run(dir, func(t *testing.T) { checkSubDir(t, k, dir) })
	}
}

func checkSubDir(t *testing.T, k *kit, dir string) {
	sub, err := k.fsys.Sub(dir)
	if err != nil {
		t.Fatalf("Sub(%q) error = %v", dir, err)
	}
	g, ok := sub.(*vfs.FS)
	if !ok {
		t.Fatalf("Sub(%q) = %T, want *vfs.FS", dir, sub)
	}
	if std, err := fs.Sub(k.fsys, dir); err != nil {
		t.Errorf("fs.Sub(fsys, %q) error = %v", dir, err)
	} else if s, ok := std.(*vfs.FS); !ok || s.URL(".") != k.fsys.URL(dir) {
		t.Errorf("fs.Sub(fsys, %q) = %T, want the *vfs.FS of Sub", dir, std)
	}
	want := k.expectedUnder(dir)
	if len(want) > 0 || k.c.Exhaustive {
		if err := stdfstest.TestFS(g, want...); err != nil {
			t.Errorf("testing/fstest.TestFS(Sub(%q), %d names) failed:\n%v", dir, len(want), err)
		}
	}
	if got, w := g.URL("."), k.fsys.URL(dir); got != w {
		t.Errorf("Sub(%q).URL(\".\") = %q, want URL(%q) = %q", dir, got, dir, w)
	}
	if got, w := g.Pipeline().String(), k.fsys.URL(dir); got != w {
		t.Errorf("Sub(%q).Pipeline().String() = %q, want URL(%q) = %q", dir, got, dir, w)
	}
	for _, rel := range want {
		full := dir + "/" + rel
		if got, w := g.URL(rel), k.fsys.URL(full); got != w {
			t.Errorf("Sub(%q).URL(%q) = %q, want URL(%q) = %q", dir, rel, got, full, w)
		}
		data, isFile := k.c.Files[full]
		if !isFile {
			continue
		}
		if got, err := g.ReadFile(rel); err != nil || !bytes.Equal(got, data) {
			t.Errorf("Sub(%q).ReadFile(%q) = %s, %v; want %s", dir, rel, show(got), err, show(data))
		}
		if info, err := g.Stat(rel); err != nil {
			t.Errorf("Sub(%q).Stat(%q) error = %v", dir, rel, err)
		} else if o, ok := info.Sys().(*vfs.Origin); !ok || o.URL != k.fsys.URL(full) {
			t.Errorf("Sub(%q).Stat(%q).Sys() = %#v, want an *vfs.Origin with URL %q", dir, rel, info.Sys(), k.fsys.URL(full))
		}
	}
	// Errors name the Sub's names, not the parent's.
	for _, o := range fsOps {
		checkMissing(t, g, o, missingName)
	}
	// A Sub of the Sub is the Sub of the joined name.
	for _, d := range k.dirs {
		rel, ok := strings.CutPrefix(d, dir+"/")
		if !ok || strings.Contains(rel, "/") {
			continue
		}
		ss, err := g.Sub(rel)
		if err != nil {
			t.Errorf("Sub(%q).Sub(%q) error = %v", dir, rel, err)
			continue
		}
		if got, w := ss.(*vfs.FS).URL("."), k.fsys.URL(path.Join(dir, rel)); got != w {
			t.Errorf("Sub(%q).Sub(%q).URL(\".\") = %q, want %q", dir, rel, got, w)
		}
	}
}
