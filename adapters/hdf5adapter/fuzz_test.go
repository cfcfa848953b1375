package hdf5adapter_test

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// smallEnv is an Env with small limits, for hostile input.
func smallEnv() *vfs.Env {
	return &vfs.Env{
		Limits: vfs.Limits{MaxEntries: 2000, MaxDocument: 1 << 20, MaxChunk: 1 << 20, MaxNameLength: 1024}.Effective(),
		Cache:  vfs.NewCache(4 << 20),
	}
}

// walkTree lists, stats and reads everything in t, to a bounded depth and
// count, as a hostile-input check: it must neither panic nor hang.
func walkTree(ctx context.Context, t driver.Tree) {
	budget := 500
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		ents, err := t.ReadDir(ctx, dir)
		if err != nil || depth > 6 {
			return
		}
		for _, e := range ents {
			if budget--; budget < 0 {
				return
			}
			name := path.Join(dir, e.Name())
			info, err := t.Stat(ctx, name)
			if err != nil {
				continue
			}
			if e.Type()&fs.ModeSymlink != 0 {
				continue
			}
			if info.IsDir() {
				walk(name, depth+1)
				continue
			}
			b, err := t.OpenBlob(ctx, name)
			if err != nil {
				continue
			}
			p := make([]byte, 1<<16)
			for _, off := range []int64{0, b.Stat().Size() / 2, b.Stat().Size() - 100} {
				if off >= 0 {
					b.ReadAt(ctx, p, off)
				}
			}
			if d, ok := info.Sys().(*hdf5adapter.Dataset); ok && d.Shape != nil {
				a := d.ArrayNode().Array
				if len(a.GridShape()) > 0 && a.ChunkBytes() <= 1<<20 {
					a.ReadChunk(ctx, make([]int64, len(a.Shape)))
				}
			}
		}
	}
	t.Stat(ctx, ".")
	walk(".", 0)
}

func FuzzOpen(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(fstest.Fixture(f, "hdf5"), "*.hdf5"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	// Shared messages in the shared-message heap, a virtual dataset,
	// complex numbers and strings of every padding.
	for _, name := range []string{"sohm_list.h5", "sohm_btree.h5", "virtual_latest.h5", "types_latest.h5"} {
		files = append(files, filepath.Join("testdata", "h5py", name))
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		tr, err := hdf5adapter.Open(ctx, driver.BytesBlob(data, nil), smallEnv())
		if err != nil {
			return
		}
		walkTree(ctx, tr)
	})
}
