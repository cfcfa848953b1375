package fstest

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// Sizes of the parallel ReadAt check.
const (
	readAtGoroutines = 8
	readAtPerG       = 64
	readAtMaxErrors  = 10 // per file, so that one bug does not flood the log
	readAtMaxFiles   = 16 // files checked in a big tree
)

// checkReadAt checks io.ReaderAt semantics on every file (a sample of a
// big tree): first a table of edge cases, then many goroutines reading at
// random offsets and lengths from one shared *vfs.File while another reads
// it sequentially with Read.
func checkReadAt(t *testing.T, k *kit) {
	for _, name := range k.sampleFiles(readAtMaxFiles) {
		t.Run(name, func(t *testing.T) {
			data := k.c.Files[name]
			f, err := k.fsys.OpenFile(name)
			if err != nil {
				t.Fatalf("OpenFile(%q) error = %v", name, err)
			}
			defer f.Close()
			readAtEdges(t, f, data)
			readAtParallel(t, f, name, data)
		})
	}
}

// readAtEdges checks the edge cases of io.ReaderAt one by one.
func readAtEdges(t *testing.T, f *vfs.File, data []byte) {
	t.Helper()
	size := int64(len(data))
	type read struct {
		off int64
		n   int
	}
	reads := []read{
		{0, 0}, {0, len(data)}, {0, len(data) + 1}, {0, len(data) + 100},
		{size, 0}, {size, 1}, {size + 1, 0}, {size + 1, 1}, {size + 1000, 10}, {1 << 40, 1},
	}
	if size > 0 {
		reads = append(reads, read{0, 1}, read{size - 1, 1}, read{size - 1, 2}, read{size / 2, 0},
			read{size / 2, int(size - size/2)}, read{size / 2, int(size-size/2) + 1})
	}
	for _, r := range reads {
		if msg := readAtOnce(f, data, r.off, r.n); msg != "" {
			t.Error(msg)
		}
	}
	n, err := f.ReadAt(make([]byte, 1), -1)
	if n != 0 || err == nil || err == io.EOF {
		t.Errorf("ReadAt(-1, 1) = %d, %v; want 0 and an error that is not io.EOF", n, err)
	}
}

// readAtOnce does one ReadAt(p[:n], off) and returns a failure message, or
// "" when the result follows io.ReaderAt: the bytes are data[off:off+n]
// clipped to the end, a short read returns exactly io.EOF (not wrapped,
// since callers compare with ==), and a full read returns nil unless it
// reaches the end, where io.EOF is allowed too.
func readAtOnce(r io.ReaderAt, data []byte, off int64, n int) string {
	p := make([]byte, n)
	for i := range p {
		p[i] = 0xA5
	}
	got, err := r.ReadAt(p, off)
	size := int64(len(data))
	var want []byte
	if off < size {
		want = data[off:min(off+int64(n), size)]
	}
	if got < 0 || got > n {
		return fmt.Sprintf("ReadAt(%d, %d) = %d bytes, %v; want %d bytes", off, n, got, err, len(want))
	}
	if !bytes.Equal(p[:min(got, len(want))], want[:min(got, len(want))]) {
		return fmt.Sprintf("ReadAt(%d, %d) = %s, %v; want %s", off, n, show(p[:got]), err, show(want))
	}
	if got != len(want) {
		why := ""
		if err == nil {
			why = " (and a short read needs an error)"
		}
		return fmt.Sprintf("ReadAt(%d, %d) = %d bytes, %v; want %d bytes%s", off, n, got, err, len(want), why)
	}
	switch {
	case got < n && err != io.EOF:
		return fmt.Sprintf("ReadAt(%d, %d) = %d bytes, error %v; want io.EOF after a short read", off, n, got, err)
	case got == n && off+int64(n) < size && err != nil:
		return fmt.Sprintf("ReadAt(%d, %d) = %d bytes, error %v; want nil before the end (size %d)", off, n, got, err, size)
	case got == n && err != nil && err != io.EOF:
		return fmt.Sprintf("ReadAt(%d, %d) = %d bytes, error %v; want nil or io.EOF at the end (size %d)", off, n, got, err, size)
	}
	return ""
}

// readAtParallel runs the random reads and a concurrent sequential Read.
func readAtParallel(t *testing.T, f *vfs.File, name string, data []byte) {
	t.Helper()
	size := len(data)
	h := fnv.New64a()
	h.Write([]byte(name))
	seed := h.Sum64()
	var nerr atomic.Int32
	report := func(msg string) {
		if nerr.Add(1) <= readAtMaxErrors {
			t.Error(msg)
		}
	}
	var wg sync.WaitGroup
	for g := range readAtGoroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			for range readAtPerG {
				var off, n int
				switch rng.IntN(8) {
				case 0: // zero length, anywhere
					off, n = rng.IntN(size+2), 0
				case 1: // across the end
					k := rng.IntN(min(size, 64) + 1)
					off, n = size-k, k+1+rng.IntN(64)
				case 2: // past the end
					off, n = size+rng.IntN(64), 1+rng.IntN(64)
				case 3: // long
					off = rng.IntN(size + 1)
					n = rng.IntN(size-off+2) + 1
				default: // short, inside
					off = rng.IntN(size + 1)
					n = 1 + rng.IntN(min(size, 4096)+1)
				}
				if msg := readAtOnce(f, data, int64(off), n); msg != "" {
					report(fmt.Sprintf("goroutine %d: %s", g, msg))
				}
			}
		})
	}
	// ReadAt must not move the offset that Read uses, and Read must work
	// while ReadAt calls run.
	wg.Go(func() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			report(fmt.Sprintf("Seek(0, io.SeekStart) error = %v", err))
			return
		}
		got, err := io.ReadAll(f)
		if err != nil {
			report(fmt.Sprintf("Read to EOF during parallel ReadAt: error = %v", err))
		} else if !bytes.Equal(got, data) {
			report(fmt.Sprintf("Read to EOF during parallel ReadAt = %s, want %s", show(got), show(data)))
		}
	})
	wg.Wait()
	if n := nerr.Load(); n > readAtMaxErrors {
		t.Errorf("... and %d more ReadAt failures", n-readAtMaxErrors)
	}
}
