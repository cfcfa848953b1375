package zstdadapter

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// FuzzZstd opens and reads arbitrary bytes as zstd: no panic, and memory
// bounded by the limits and the window limit.
func FuzzZstd(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.zst")
	for _, n := range names {
		b, _ := os.ReadFile(n)
		f.Add(b)
	}
	o := &vfs.Options{Limits: vfs.Limits{MaxFileSize: 1 << 20, MaxWindow: 8 << 20}}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A slow input is a bug too: crash, so that the fuzzer keeps it.
		watchdog := time.AfterFunc(20*time.Second, func() { panic("one input took more than 20 s") })
		defer watchdog.Stop()
		ctx := context.Background()
		loc, err := open(ctx, driver.BytesBlob(data, &driver.FileInfo{FName: "f.zst", FSize: int64(len(data))}), vfs.SubURL{}, vfs.NewEnv("", "", o))
		if err != nil {
			return
		}
		b := loc.Blob
		buf := make([]byte, 4096)
		size := b.Stat().Size()
		for _, off := range []int64{size / 2, 0, size - 1} {
			if off >= 0 {
				b.ReadAt(ctx, buf, off) // errors are fine: data is checked lazily
			}
		}
		io.Copy(io.Discard, io.NewSectionReader(driver.ReaderAt(ctx, b), 0, size))
		// The streamed read must agree with ReadAt.
		if rc, err := b.(driver.Streamer).Stream(ctx, 0); err == nil {
			n, err := io.Copy(io.Discard, rc)
			rc.Close()
			if err == nil && n != b.Stat().Size() {
				t.Errorf("streamed %d bytes cleanly, size %d", n, b.Stat().Size())
			}
		}
		b.(io.Closer).Close()
	})
}
