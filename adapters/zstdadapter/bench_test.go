package zstdadapter

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/internal/benchcorpus"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// zst256 is 256 MiB of Go sources compressed by zstd -3, built at
// benchmark time: one frame, which declares its size, or with frame > 0
// one frame for each frame bytes of input (split --filter), which declare
// none (zstd reads them from a pipe).
func zst256(b *testing.B, frame int) string {
	tar, err := benchcorpus.Tar(256 << 20)
	if err != nil {
		b.Skip(err)
	}
	cmd, ext := "zstd -q -3 -c", ".zst"
	if frame > 0 {
		cmd, ext = fmt.Sprintf("split -b %d --filter='zstd -q -3 -c'", frame), fmt.Sprintf(".%d.zst", frame)
	}
	p, err := benchcorpus.Compressed(tar, cmd, ext)
	if err != nil {
		b.Skip(err)
	}
	return p
}

// BenchmarkZstdCat256 is `pipefs cat`: open and io.Copy, which streams
// the file, on one core and on all (GOMAXPROCS): on two or more, the
// frame of 256 MiB, and frames of 4 MiB (about 800 KiB compressed), are
// decoded ahead of the copy (see blob.ahead).
func BenchmarkZstdCat256(b *testing.B) {
	for _, frame := range []int{0, 4 << 20, 1 << 20, 256 << 10} {
		name := "one frame"
		if frame > 0 {
			name = fmt.Sprintf("unsized frames of %d KiB", frame>>10)
		}
		for _, procs := range slices.Compact([]int{1, runtime.NumCPU()}) {
			b.Run(fmt.Sprintf("%s/procs=%d", name, procs), func(b *testing.B) {
				p := zst256(b, frame)
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				b.SetBytes(256 << 20)
				b.ReportAllocs()
				for b.Loop() {
					f, err := vfs.Open(context.Background(), "file:"+p+"|zstd:", nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, f); err != nil {
						b.Fatal(err)
					}
					f.Close()
				}
			})
		}
	}
}

// BenchmarkZstdDashDC runs zstd -dc on the same file.
func BenchmarkZstdDashDC(b *testing.B) {
	p := zst256(b, 0)
	b.SetBytes(256 << 20)
	for b.Loop() {
		if err := benchcorpus.Run(fmt.Sprintf("zstd -dc %q", p)); err != nil {
			b.Skip(err)
		}
	}
}

// BenchmarkConcurrency streams the file with the library alone, at
// several decoder concurrencies (blocks in flight): 1 decodes on the
// reading goroutine, as the adapter does on one core and for small
// frames; for the others it has streamAhead in flight.
func BenchmarkConcurrency(b *testing.B) {
	p := zst256(b, 0)
	for _, c := range []int{1, 2, 8, 16, 32} {
		b.Run(fmt.Sprintf("concurrency=%d", c), func(b *testing.B) {
			b.SetBytes(256 << 20)
			for b.Loop() {
				f, err := os.Open(p)
				if err != nil {
					b.Fatal(err)
				}
				d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(c))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := d.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
				d.Close()
				f.Close()
			}
		})
	}
}
