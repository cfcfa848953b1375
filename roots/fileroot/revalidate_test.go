package fileroot_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestRevalidate checks a file opened as the root's file and one opened
// from a directory: unchanged, it is current; appended to, rewritten in
// place with its size and time kept, replaced by a rename with its size
// and time kept, or removed, it is not, while the blob goes on reading
// what it opened.
func TestRevalidate(t *testing.T) {
	ctx := context.Background()
	mod := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(t *testing.T, name, data string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(name, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	changes := []struct {
		name    string
		change  func(t *testing.T, name string)
		missing bool
		read    string // what the blob reads after the change
	}{
		{"appended", func(t *testing.T, name string) {
			f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("more\n")
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}, false, "one\n"},
		{"rewritten in place", func(t *testing.T, name string) { write(t, name, "two\n") }, false, "two\n"},
		{"renamed over", func(t *testing.T, name string) {
			write(t, name+".tmp", "two\n")
			if err := os.Rename(name+".tmp", name); err != nil {
				t.Fatal(err)
			}
		}, false, "one\n"},
		{"removed", func(t *testing.T, name string) {
			if err := os.Remove(name); err != nil {
				t.Fatal(err)
			}
		}, true, "one\n"},
	}
	opens := []struct {
		name string
		open func(t *testing.T, dir string) *vfs.File
	}{
		{"root", func(t *testing.T, dir string) *vfs.File {
			f, err := vfs.Open(ctx, fileURL(t, dir)+"a.txt", nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}},
		{"in a directory", func(t *testing.T, dir string) *vfs.File {
			fsys, err := vfs.OpenFS(ctx, fileURL(t, dir), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fsys.Close() })
			f, err := fsys.OpenFile("a.txt")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}},
	}
	for _, o := range opens {
		for _, c := range changes {
			t.Run(o.name+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				name := filepath.Join(dir, "a.txt")
				write(t, name, "one\n")
				f := o.open(t, dir)
				var rv driver.Revalidator
				if !f.As(&rv) {
					t.Fatal("the file's blob is not a driver.Revalidator")
				}
				if err := rv.Revalidate(ctx); err != nil {
					t.Fatalf("Revalidate() of the unchanged file = %v, want nil", err)
				}
				c.change(t, name)
				err := rv.Revalidate(ctx)
				if !errors.Is(err, driver.ErrModified) || errors.Is(err, fs.ErrNotExist) != c.missing {
					t.Errorf("Revalidate() after the change = %v, want driver.ErrModified (fs.ErrNotExist too: %v)", err, c.missing)
				}
				p := make([]byte, 4)
				if _, err := f.ReadAt(p, 0); err != nil || string(p) != c.read {
					t.Errorf("ReadAt after the change = %q, %v, want %q", p, err, c.read)
				}
			})
		}
	}
}
