package gzipadapter

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/lazysize"
	"github.com/pipefs/pipefs/vfs"
)

// FuzzGzip opens and reads arbitrary bytes as gzip: no panic, memory
// bounded by the limits, reads that succeed when the size pass did, and a
// streamed read that agrees with it.
func FuzzGzip(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.gz")
	for _, n := range names {
		b, _ := os.ReadFile(n)
		f.Add(b)
	}
	o := &vfs.Options{Limits: vfs.Limits{MaxFileSize: 1 << 20}} // small: each input is decoded several times
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		loc, err := open(ctx, driver.BytesBlob(data, &driver.FileInfo{FName: "f.gz", FSize: int64(len(data))}), vfs.SubURL{}, vfs.NewEnv("", "", o))
		if err != nil {
			return
		}
		b := loc.Blob
		// Opening decodes nothing; the size pass may find the stream
		// bad. Then streaming it must fail too, never end cleanly.
		info := b.Stat().(*lazysize.Info)
		size := info.Size()
		if err := info.Err(); err != nil {
			rc, serr := b.(driver.Streamer).Stream(ctx, 0)
			if serr == nil {
				_, serr = io.Copy(io.Discard, rc)
				rc.Close()
			}
			if serr == nil {
				t.Fatalf("Size failed (%v), and streaming ended cleanly", err)
			}
			b.(io.Closer).Close()
			return
		}
		buf := make([]byte, 4096)
		for _, off := range []int64{size / 2, 0, size - 1, size / 3} {
			if off < 0 {
				continue
			}
			if _, err := b.ReadAt(ctx, buf, off); err != nil && err != io.EOF {
				t.Fatalf("ReadAt(%d) after a successful open: %v", off, err)
			}
		}
		rc, err := b.(driver.Streamer).Stream(ctx, 0)
		if err != nil {
			t.Fatalf("Stream after a good size pass: %v", err)
		}
		if n, err := io.Copy(io.Discard, rc); err != nil || n != size {
			t.Fatalf("streamed %d bytes (%v), size %d", n, err, size)
		}
		rc.Close()
		b.(io.Closer).Close()
	})
}
