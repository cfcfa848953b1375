package zipadapter

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// FuzzZip opens arbitrary bytes, walks the tree and reads every file,
// nested archives included, under small limits: no panic, no hang, and
// every failure is one of the documented kinds; and the records Open
// reads are those archive/zip reads, decoded the same.
func FuzzZip(f *testing.F) {
	for _, name := range fixtureNames(f) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// The other compression methods, each decoder a path of its own.
	methods, _ := filepath.Glob(filepath.Join("testdata", "methods", "*.zip"))
	for _, name := range methods {
		if b, err := os.ReadFile(name); err == nil && len(b) < 20<<10 {
			f.Add(b)
		}
	}
	f.Add(overlapping(f, 3))
	o := &vfs.Options{Limits: vfs.Limits{
		MaxEntries:    1000,
		MaxNameLength: 256,
		MaxFileSize:   1 << 20,
		MaxRatio:      1100,
		MaxWindow:     1 << 20, // LZMA, XZ and Zstandard allocate up to this
	}}
	f.Fuzz(func(t *testing.T, b []byte) {
		// A hang is a failure too: dump every goroutine and crash, so
		// that the fuzzer keeps the input.
		watchdog := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic("FuzzZip: input takes over 10s:\n" + string(buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		// What Open reads, it reads as archive/zip does.
		if a, err := Open(context.Background(), driver.BytesBlob(b, nil), o); err == nil {
			sameAsArchiveZip(t, b, a)
		}
		fuzzTree(t, driver.BytesBlob(b, nil), o, 0)
	})
}

func fuzzTree(t *testing.T, blob driver.Blob, o *vfs.Options, depth int) {
	ctx := context.Background()
	a, err := Open(ctx, blob, o)
	if err != nil {
		checkFuzzErr(t, err)
		return
	}
	fs.WalkDir(fstest.TreeFS(a), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatalf("walk %s: %v", name, err)
		}
		if d.IsDir() {
			return nil
		}
		b, err := a.OpenBlob(ctx, name)
		if err != nil {
			checkFuzzErr(t, err)
			return nil
		}
		defer func() {
			if c, ok := b.(io.Closer); ok {
				c.Close()
			}
		}()
		p := make([]byte, 4096)
		var off int64
		for off < 1<<20 {
			n, err := b.ReadAt(ctx, p, off)
			off += int64(n)
			if err == io.EOF {
				break
			}
			if err != nil {
				checkFuzzErr(t, err)
				return nil
			}
		}
		if depth < 2 && b.Stat().Size() >= dirEndLen {
			fuzzTree(t, b, o, depth+1)
		}
		return nil
	})
}

func checkFuzzErr(t *testing.T, err error) {
	if !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) && !errors.Is(err, errors.ErrUnsupported) &&
		!errors.Is(err, driver.ErrUnsafePath) {
		t.Fatalf("unexpected error kind: %v", err)
	}
}
