package memroot_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func TestConformance(t *testing.T) {
	files := map[string][]byte{
		"a.txt":         []byte("hello, world\n"),
		"empty":         {},
		"d/b.txt":       []byte("in a directory"),
		"d/e/c.bin":     {0, 1, 2, 3, 255},
		"d/e/odd #1.md": []byte("a name to escape"),
	}
	prefix := fstest.MapFiles(t, files)
	// The three spellings of a key name the same tree.
	for _, scheme := range []string{"memory:/", "memory://", "memory:"} {
		t.Run(scheme, func(t *testing.T) {
			fstest.Run(t, fstest.Case{Pipeline: scheme + prefix + "/", Files: files, Exhaustive: true})
		})
	}
}

// "memory:" reads the store of the pipeline's cache: two caches share no
// files, and the package-level functions write the default cache's store.
func TestStorePerCache(t *testing.T) {
	c1, c2 := vfs.NewCache(0), vfs.NewCache(0)
	if err := memroot.For(c1).WriteFile("per-cache/f", []byte("one")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f, err := vfs.Open(ctx, "memory:per-cache/f", &vfs.Options{Cache: c1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.NewSectionReader(f, 0, 100))
	f.Close()
	if err != nil || string(got) != "one" {
		t.Fatalf("reading with c1 = %q, %v; want %q", got, err, "one")
	}
	for _, o := range []*vfs.Options{{Cache: c2}, nil} {
		if f, err := vfs.Open(ctx, "memory:per-cache/f", o); !errors.Is(err, fs.ErrNotExist) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenFile with another cache (%v): error = %v, want fs.ErrNotExist", o, err)
		}
	}
	if memroot.For(nil) != memroot.Default() || memroot.For(vfs.DefaultCache()) != memroot.Default() {
		t.Error("For(nil), For(DefaultCache()) and Default() differ")
	}
}

// A blob's fingerprint names the write whose bytes it reads: the same for
// every open of one write, another after the key is written again, even
// with the same bytes.
func TestFingerprint(t *testing.T) {
	ctx := context.Background()
	s := memroot.NewStore()
	fp := func() string {
		t.Helper()
		b, err := s.OpenBlob(ctx, "a.txt")
		if err != nil {
			t.Fatal(err)
		}
		f, ok := b.(driver.Fingerprinter)
		if !ok || f.Fingerprint() == "" {
			t.Fatalf("%T gives no fingerprint", b)
		}
		return f.Fingerprint()
	}
	if err := s.WriteFile("a.txt", []byte("same")); err != nil {
		t.Fatal(err)
	}
	first := fp()
	if again := fp(); again != first {
		t.Errorf("two opens of one write: fingerprints %q and %q", first, again)
	}
	if err := s.WriteFile("a.txt", []byte("same")); err != nil {
		t.Fatal(err)
	}
	if next := fp(); next == first {
		t.Errorf("a second write kept the fingerprint %q", first)
	}
}
