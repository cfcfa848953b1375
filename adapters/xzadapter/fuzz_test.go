package xzadapter_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/xzadapter"
	"github.com/pipefs/pipefs/vfs"
)

// FuzzXz opens and reads arbitrary bytes as xz: no panic, bounded
// output, and the streamed read agrees with ReadAt.
func FuzzXz(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.xz")
	for _, n := range names {
		b, _ := os.ReadFile(n)
		if len(b) < 30000 {
			f.Add(b)
		}
	}
	o := &vfs.Options{Limits: vfs.Limits{MaxFileSize: 256 << 10}} // small: each input is decoded several times
	f.Fuzz(func(t *testing.T, data []byte) {
		// A slow input is a bug too: crash, so that the fuzzer keeps it.
		watchdog := time.AfterFunc(20*time.Second, func() { panic("one input took more than 20 s") })
		defer watchdog.Stop()
		ctx := context.Background()
		loc, err := xzadapter.Open(ctx,
			driver.BytesBlob(data, nil), vfs.SubURL{}, vfs.NewEnv("", "", o))
		if err != nil {
			return
		}
		b := loc.Blob
		rc, err := b.(driver.Streamer).Stream(ctx, 0)
		if err != nil {
			return
		}
		n, serr := io.Copy(io.Discard, rc)
		rc.Close()
		m, rerr := io.Copy(io.Discard, io.NewSectionReader(driver.ReaderAt(ctx, b), 0, 1<<40))
		if (serr == nil) != (rerr == nil) || serr == nil && n != m {
			t.Errorf("streamed %d bytes (%v), read %d (%v)", n, serr, m, rerr)
		}
		if serr == nil && b.Stat().Size() != n {
			t.Errorf("Size() = %d, streamed %d", b.Stat().Size(), n)
		}
	})
}
