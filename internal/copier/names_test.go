package copier

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// FuzzCheckLink checks that a symbolic link that checkLink accepts,
// made at name in a tree, leads to a path inside the tree, and that one
// it refuses is refused with ErrRefused.
func FuzzCheckLink(f *testing.F) {
	for _, s := range [][2]string{
		{"a", "b"}, {"d/l", "../a"}, {"d/l", "../../a"}, {"l", "/etc/passwd"},
		{"d/e/l", "../x/../../y"}, {"l", ""}, {"l", "a\x00b"}, {"d/l", "./x"}, {"l", "C:/x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, target string) {
		if !fs.ValidPath(name) || name == "." {
			return // checkLocalName refuses the name first
		}
		err := checkLink("u", name, target, strconv.Quote)
		if err != nil {
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("checkLink(%q, %q) = %v, not ErrRefused", name, target, err)
			}
			return
		}
		to := path.Join(path.Dir(name), target)
		if path.IsAbs(target) || to == ".." || strings.HasPrefix(to, "../") {
			t.Fatalf("checkLink accepts %q -> %q, which leads to %q", name, target, to)
		}
	})
}

// FuzzCheckLocalName checks that a name checkLocalName accepts is a
// relative path inside the destination whose elements fit a local name.
func FuzzCheckLocalName(f *testing.F) {
	for _, s := range []string{"a", "a/b", "../a", "/a", "a//b", ".", "a\x00", strings.Repeat("x", 256), "a/./b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := checkLocalName("u", name, strconv.Quote)
		if err != nil {
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("checkLocalName(%q) = %v, not ErrRefused", name, err)
			}
			return
		}
		if !filepath.IsLocal(filepath.FromSlash(name)) || !fs.ValidPath(name) || strings.IndexByte(name, 0) >= 0 {
			t.Fatalf("checkLocalName accepts %q", name)
		}
		for _, el := range strings.Split(name, "/") {
			if len(el) > maxLocalName {
				t.Fatalf("checkLocalName accepts %q, with an element of %d bytes", name, len(el))
			}
		}
	})
}

// TestTreeName checks what a copy of a tree inside a directory is
// called.
func TestTreeName(t *testing.T) {
	for _, tc := range []struct{ pipeline, want string }{
		{"file:/d/a.zip|zip:", "a"},
		{"file:/d/a.tar.gz|gzip:|pipefs.tar:", "a"},
		{"file:/d/a.zip|zip:run1/", "run1"},
		{"file:/d/scans/", "scans"},
		{"file:/d/a.zip|zip:x/b.tar|pipefs.tar:", "b"},
	} {
		p, err := vfs.Parse(tc.pipeline)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := TreeName(p); err != nil || got != tc.want {
			t.Errorf("TreeName(%s) = %q, %v; want %q", tc.pipeline, got, err, tc.want)
		}
	}
}
