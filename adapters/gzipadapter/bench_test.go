package gzipadapter_test

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// benchFile builds, once per run, a 256 MiB corpus (Go sources and tar
// headers, like a real .tar.gz) and gzips it with the gzip tool. Set
// PIPEFS_BENCH_TAR to use another tar file.
var benchFile = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "gzbench")
	if err != nil {
		return "", err
	}
	tarPath := filepath.Join(dir, "data.tar")
	if src := os.Getenv("PIPEFS_BENCH_TAR"); src != "" {
		tarPath = src
	} else {
		script := `r=$(go env GOROOT) && for i in 1 2 3 4 5 6; do tar cf - -C "$r" src 2>/dev/null; done | head -c 268435456 > "$OUT"`
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), "OUT="+tarPath)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", &exec.ExitError{Stderr: out}
		}
	}
	gz := filepath.Join(dir, "data.tar.gz")
	if err := exec.Command("sh", "-c", `gzip -6 -c "$0" > "$1"`, tarPath, gz).Run(); err != nil {
		return "", err
	}
	return gz, nil
})

func benchPath(b *testing.B) string {
	p, err := benchFile()
	if err != nil {
		b.Skip("building the benchmark file:", err)
	}
	return p
}

func open256(b *testing.B) *vfs.File {
	f, err := vfs.Open(context.Background(), "file:"+benchPath(b)+"|gzip:", nil)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkGzipCat256 is `pipefs cat` with the index cached by an earlier
// open: open and a sequential io.Copy.
func BenchmarkGzipCat256(b *testing.B) {
	f := open256(b) // warm the index cache: later opens skip the pass
	size := f.Size()
	f.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		f := open256(b)
		if _, err := io.Copy(io.Discard, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkGzipColdCat256 is `pipefs cat` in a fresh process: no cached
// index, open decodes nothing, and io.Copy streams through driver.Streamer,
// building the index and learning the size in its one pass.
func BenchmarkGzipColdCat256(b *testing.B) {
	p := benchPath(b)
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		// A fresh modification time is a fresh cache key.
		now := time.Now()
		os.Chtimes(p, now, now)
		f, err := vfs.Open(context.Background(), "file:"+p+"|gzip:", nil)
		if err != nil {
			b.Fatal(err)
		}
		if size, err = io.Copy(io.Discard, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	b.SetBytes(size)
}

// BenchmarkGzipFirstOpen256 is the first open in a process followed by
// Size: the pass that learns the size and builds the index.
func BenchmarkGzipFirstOpen256(b *testing.B) {
	p := benchPath(b)
	b.ReportAllocs()
	var size int64
	for b.Loop() {
		// A fresh modification time is a fresh cache key.
		now := time.Now()
		os.Chtimes(p, now, now)
		f, err := vfs.Open(context.Background(), "file:"+p+"|gzip:", nil)
		if err != nil {
			b.Fatal(err)
		}
		size = f.Size()
		f.Close()
	}
	b.SetBytes(size)
}

// BenchmarkGzipDashDC runs gzip -dc on the same file for the ratio.
func BenchmarkGzipDashDC(b *testing.B) {
	p := benchPath(b)
	f := open256(b)
	b.SetBytes(f.Size())
	f.Close()
	for b.Loop() {
		if err := exec.Command("sh", "-c", `gzip -dc "$0" > /dev/null`, p).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRandom4K reads 4 KiB at 100 random offsets with the index.
func BenchmarkRandom4K(b *testing.B) {
	f := open256(b)
	defer f.Close()
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 4096)
	b.ReportAllocs()
	for b.Loop() {
		for range 100 {
			if _, err := f.ReadAt(buf, r.Int64N(f.Size()-4096)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/100, "µs/read")
	pts, bytes := gzipadapter.IndexStats(f)
	b.ReportMetric(float64(pts), "checkpoints")
	b.ReportMetric(float64(bytes)/(1<<20), "index-MiB")
}

// BenchmarkRandom4KFromZero decodes from offset 0 to each random offset,
// as a reader without an index must.
func BenchmarkRandom4KFromZero(b *testing.B) {
	f := open256(b)
	defer f.Close()
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 4096)
	for b.Loop() {
		for range 3 {
			off := r.Int64N(f.Size() - 4096)
			// A fresh reader per read: no checkpoint but offset 0.
			g := open256(b)
			io.Copy(io.Discard, io.NewSectionReader(g, 0, off))
			g.ReadAt(buf, off)
			g.Close()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/3, "µs/read")
}

// BenchmarkPeakMemory reads the whole 256 MiB stream and reports the peak
// heap in use, sampled every millisecond.
func BenchmarkPeakMemory(b *testing.B) {
	f := open256(b)
	defer f.Close()
	var peak uint64
	for b.Loop() {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond):
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > base.HeapInuse {
						peak = max(peak, ms.HeapInuse-base.HeapInuse)
					}
				}
			}
		}()
		g := open256(b)
		io.Copy(io.Discard, g)
		g.Close()
		close(done)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
