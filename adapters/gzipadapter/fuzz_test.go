package gzipadapter

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// FuzzGzip opens and reads arbitrary bytes as gzip: no panic, and memory
// bounded by the limits.
func FuzzGzip(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.gz")
	for _, n := range names {
		b, _ := os.ReadFile(n)
		f.Add(b)
	}
	o := &vfs.Options{Limits: vfs.Limits{MaxFileSize: 8 << 20}}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		loc, err := open(ctx, vfs.Location{Blob: vfs.BytesBlob(data, &vfs.FileInfo{FName: "f.gz", FSize: int64(len(data))})}, vfs.SubURL{}, o)
		if err != nil {
			return
		}
		b := loc.Blob
		buf := make([]byte, 4096)
		size := b.Stat().Size()
		for _, off := range []int64{size / 2, 0, size - 1, size / 3} {
			if off < 0 {
				continue
			}
			if _, err := b.ReadAt(ctx, buf, off); err != nil && err != io.EOF {
				t.Fatalf("ReadAt(%d) after a successful open: %v", off, err)
			}
		}
		b.(io.Closer).Close()
	})
}
