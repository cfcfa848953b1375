package fileroot_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// writeTree writes files (fs names) under the local directory dir.
func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fileURL returns the file: pipeline of the local directory dir.
func fileURL(t *testing.T, dir string) string {
	t.Helper()
	u := filepath.ToSlash(dir)
	if !strings.HasPrefix(u, "/") {
		u = "/" + u // a Windows drive path
	}
	for _, c := range u {
		if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/", c) {
			t.Skipf("temporary directory %q needs escaping in a URL", dir)
		}
	}
	return "file:" + u + "/"
}

func TestConformance(t *testing.T) {
	files := map[string][]byte{
		"a.txt":          []byte("hello, world\n"),
		"empty":          {},
		"d/b.txt":        []byte(strings.Repeat("in a directory\n", 1000)),
		"d/e/c.bin":      {0, 1, 2, 3, 255},
		"d/e/odd #1.md":  []byte("a name to escape"),
		"d/e/f/deep.txt": []byte("deep"),
	}
	dir := t.TempDir()
	writeTree(t, dir, files)
	if err := os.Mkdir(filepath.Join(dir, "empty-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	fstest.Run(t, fstest.Case{
		Pipeline: fileURL(t, dir), Files: files, Dirs: []string{"empty-dir"}, Exhaustive: true,
	})
}

// TestConfined checks that a file: tree cannot be left: symbolic links
// that point outside it fail with fs.ErrPermission and driver.ErrUnsafePath,
// links inside it work, and ".." names are invalid.
func TestConfined(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	root := filepath.Join(base, "root")
	writeTree(t, outside, map[string][]byte{"secret.txt": []byte("secret")})
	writeTree(t, root, map[string][]byte{"a.txt": []byte("inside"), "d/b.txt": []byte("b")})
	links := map[string]string{
		"escape-file":   filepath.Join(outside, "secret.txt"),
		"escape-dir":    outside,
		"escape-rel":    "../outside/secret.txt",
		"d/escape-up":   "../../outside/secret.txt",
		"inside-link":   "a.txt",
		"d/inside-link": "../a.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			fstest.Unavailable(t, "symlinks unavailable: %v", err)
		}
	}
	fsys, err := vfs.OpenFS(t.Context(), fileURL(t, root), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()

	for _, name := range []string{"escape-file", "escape-dir/secret.txt", "escape-rel", "d/escape-up"} {
		_, err := fsys.Open(name)
		if err == nil || !errors.Is(err, fs.ErrPermission) || !errors.Is(err, driver.ErrUnsafePath) {
			t.Errorf("Open(%q) error = %v, want errors matching fs.ErrPermission and driver.ErrUnsafePath", name, err)
		}
		if data, err := fsys.ReadFile(name); err == nil {
			t.Errorf("ReadFile(%q) = %q, want an error", name, data)
		} else if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("ReadFile(%q) error = %v, want fs.ErrPermission", name, err)
		}
	}
	for _, name := range []string{"inside-link", "d/inside-link"} {
		if data, err := fsys.ReadFile(name); err != nil || string(data) != "inside" {
			t.Errorf("ReadFile(%q) = %q, %v; want \"inside\", nil", name, data, err)
		}
	}
	for _, name := range []string{"../outside/secret.txt", "d/../../outside/secret.txt", "d/../a.txt", ".."} {
		if _, err := fsys.Open(name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q) error = %v, want fs.ErrInvalid", name, err)
		}
	}
}
