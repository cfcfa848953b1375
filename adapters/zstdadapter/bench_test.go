package zstdadapter

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/internal/benchcorpus"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// zst256 is 256 MiB of Go sources compressed by zstd -3, built at
// benchmark time.
func zst256(b *testing.B) string {
	tar, err := benchcorpus.Tar(256 << 20)
	if err != nil {
		b.Skip(err)
	}
	p, err := benchcorpus.Compressed(tar, "zstd -q -3 -c", ".zst")
	if err != nil {
		b.Skip(err)
	}
	return p
}

// BenchmarkZstdCat256 is `pipefs cat`: open and io.Copy.
func BenchmarkZstdCat256(b *testing.B) {
	p := zst256(b)
	b.SetBytes(256 << 20)
	b.ReportAllocs()
	for b.Loop() {
		f, err := vfs.OpenFile(context.Background(), "file:"+p+"|zstd:", nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkZstdDashDC runs zstd -dc on the same file.
func BenchmarkZstdDashDC(b *testing.B) {
	p := zst256(b)
	b.SetBytes(256 << 20)
	for b.Loop() {
		if err := benchcorpus.Run(fmt.Sprintf("zstd -dc %q", p)); err != nil {
			b.Skip(err)
		}
	}
}

// BenchmarkConcurrency streams the file with the decoder's concurrency 1
// (what the adapter uses) and the library's default (GOMAXPROCS).
func BenchmarkConcurrency(b *testing.B) {
	p := zst256(b)
	for _, c := range []int{1, 0} {
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
				if _, err := io.Copy(io.Discard, d); err != nil {
					b.Fatal(err)
				}
				d.Close()
				f.Close()
			}
		})
	}
}
