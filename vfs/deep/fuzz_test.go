package deep_test

import (
	"archive/zip"
	"context"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/deep"
)

// FuzzWalkDir walks an archive of any bytes, and the containers in it,
// deep, under small limits: the walk ends, without a panic, whatever the
// bytes, and every path it gives is below the root and within the depth.
func FuzzWalkDir(f *testing.F) {
	f.Add(outerZip(f))
	f.Add(fstest.TarGzBytes(map[string][]byte{"a.zip": fstest.ZipBytes(map[string][]byte{"b.txt": []byte("b")}, zip.Store)}))
	f.Add(fstest.ZipBytes(map[string][]byte{"a.zip": fstest.ZipBytes(map[string][]byte{"a.zip": []byte("PK\x03\x04")}, zip.Store)}, zip.Store))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := memroot.WriteFile("deep-fuzz/archive", data); err != nil {
			t.Fatal(err)
		}
		o := &vfs.Options{Cache: vfs.NewCache(0), Limits: vfs.Limits{MaxEntries: 64, MaxFileSize: 1 << 20, MaxDepth: 8}}
		fsys, err := vfs.OpenFS(context.Background(), "memory:deep-fuzz/archive", o)
		if err != nil {
			return
		}
		defer fsys.Close()
		deep.WalkDir(fsys, ".", &deep.Options{Depth: 2}, func(p string, e *deep.Entry, err error) error {
			if !fs.ValidPath(p) || e.FS == nil || e.Level > 2 || (e.IsContainer() && e.Level >= 2) {
				t.Errorf("%s: entry %+v at level %d", p, e, e.Level)
			}
			return nil
		})
	})
}
