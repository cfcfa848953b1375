package zipadapter

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/pipefs/pipefs/internal/benchcorpus"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// member64 is a zip holding a 64 MiB member of Go sources, deflated by
// zip -6, built at benchmark time.
func member64(b *testing.B) (zipPath, url string) {
	p, err := benchcorpus.Zip(64 << 20)
	if err != nil {
		b.Skip(err)
	}
	return p, "file:" + p + "|zip:m.bin"
}

// BenchmarkDeflateCat64 is `pipefs cat` of the member: open and io.Copy,
// which streams through driver.Streamer.
func BenchmarkDeflateCat64(b *testing.B) {
	_, url := member64(b)
	b.SetBytes(64 << 20)
	b.ReportAllocs()
	for b.Loop() {
		f, err := vfs.Open(context.Background(), url, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkDeflateTools runs bsdtar -xOf and unzip -p on the same file.
func BenchmarkDeflateTools(b *testing.B) {
	p, _ := member64(b)
	for _, tool := range []string{"bsdtar -xOf", "unzip -p"} {
		b.Run(tool, func(b *testing.B) {
			b.SetBytes(64 << 20)
			for b.Loop() {
				if err := benchcorpus.Run(fmt.Sprintf("%s %q m.bin", tool, p)); err != nil {
					b.Skip(tool, err)
				}
			}
		})
	}
}

// BenchmarkDeflateRandom4K reads 4 KiB at random offsets of the member,
// with the index a first pass built.
func BenchmarkDeflateRandom4K(b *testing.B) {
	_, url := member64(b)
	f, err := vfs.Open(context.Background(), url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	io.Copy(io.Discard, io.NewSectionReader(f, 0, f.Size())) // the first pass
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 4096)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.ReadAt(buf, r.Int64N(f.Size()-4096)); err != nil {
			b.Fatal(err)
		}
	}
}
