package fileroot_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestCounts checks that a file's blob counts its reads and the bytes they
// returned, and that a directory's tree counts those of every blob opened
// from it.
func TestCounts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{"a.txt": []byte("hello, world\n"), "d/b.txt": []byte("bee")})

	loc, err := fileroot.OpenPath(ctx, filepath.Join(dir, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Blob.(io.Closer).Close()
	counts := func(v any) driver.Counts {
		t.Helper()
		c, ok := v.(driver.Counter)
		if !ok {
			t.Fatalf("%T is not a driver.Counter", v)
		}
		return c.Stats()
	}
	if got := counts(loc.Blob); got != (driver.Counts{}) {
		t.Errorf("counts before a read = %+v", got)
	}
	buf := make([]byte, 5)
	loc.Blob.ReadAt(ctx, buf, 0)
	loc.Blob.ReadAt(ctx, buf, 10) // 3 bytes and io.EOF
	if got, want := counts(loc.Blob), (driver.Counts{Requests: 2, Bytes: 8}); got != want {
		t.Errorf("counts after reading 5 and 3 bytes = %+v, want %+v", got, want)
	}

	loc, err = fileroot.OpenPath(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Tree.(io.Closer).Close()
	for _, name := range []string{"a.txt", "d/b.txt"} {
		b, err := loc.Tree.OpenBlob(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, b.Stat().Size())
		if _, err := b.ReadAt(ctx, buf, 0); err != nil {
			t.Fatal(err)
		}
		b.(io.Closer).Close()
	}
	if got, want := counts(loc.Tree), (driver.Counts{Requests: 2, Bytes: 16}); got != want {
		t.Errorf("the tree counted %+v, want %+v", got, want)
	}
}
