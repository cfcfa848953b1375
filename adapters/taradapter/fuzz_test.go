package taradapter

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// FuzzTar opens arbitrary bytes as an archive under small limits and
// reads everything it lists: no panic, no hang, errors of the documented
// kinds, and reads that stay within each file's size.
func FuzzTar(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.tar")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(fuzzTar)
}

func fuzzTar(t *testing.T, data []byte) {
	o := &vfs.Options{Limits: vfs.Limits{MaxEntries: 64, MaxNameLength: 512, MaxFileSize: 1 << 20}}
	{
		ctx := context.Background()
		a, err := Open(ctx, driver.BytesBlob(data, nil), o)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) {
				t.Fatalf("Open error = %v, want driver.ErrCorrupt or driver.ErrLimit", err)
			}
			return
		}
		_ = fs.WalkDir(fstest.TreeFS(a), ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if _, err := a.Stat(ctx, name); err != nil && !errors.Is(err, driver.ErrUnsafePath) && !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Stat(%q) error = %v", name, err)
			}
			b, err := a.OpenBlob(ctx, name)
			if err != nil {
				return nil
			}
			size := b.Stat().Size()
			p := make([]byte, min(size, 1<<20)+1)
			n, err := b.ReadAt(ctx, p, 0)
			if int64(n) > size || (err != nil && err != io.EOF && !errors.Is(err, driver.ErrCorrupt)) {
				t.Errorf("ReadAt(%q) = %d, %v; size %d", name, n, err, size)
			}
			if size > 1 {
				b.ReadAt(ctx, p[:2], size/2)
			}
			return nil
		})
	}
}
