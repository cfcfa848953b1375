package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

var innerPayload = bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB

// buildNest writes outer.zip to dir: filler members of other bytes (random,
// stored) totalling filler bytes, then mid.zip stored, holding deep.zip
// stored, holding payload.bin stored.
func buildNest(tb testing.TB, dir string, filler int64) string {
	tb.Helper()
	one := func(name string, body []byte) []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		f, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			tb.Fatal(err)
		}
		f.Write(body)
		w.Close()
		return buf.Bytes()
	}
	deep := one("payload.bin", innerPayload)
	mid := one("deep.zip", deep)
	name := filepath.Join(dir, fmt.Sprintf("outer-%d.zip", filler))
	f, err := os.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := zip.NewWriter(f)
	chunk := make([]byte, 1<<20)
	rng := rand.NewChaCha8([32]byte{})
	for i := int64(0); i*int64(len(chunk)) < filler; i++ {
		rng.Read(chunk)
		fw, err := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("filler/%04d.bin", i), Method: zip.Store})
		if err != nil {
			tb.Fatal(err)
		}
		fw.Write(chunk)
	}
	fw, _ := w.CreateHeader(&zip.FileHeader{Name: "mid.zip", Method: zip.Store})
	fw.Write(mid)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return name
}

// openNest opens the three levels over the file at name and returns the
// innermost member.
func openNest(tb testing.TB, name string) (driver.Blob, func()) {
	tb.Helper()
	ctx := context.Background()
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	fi, _ := f.Stat()
	var b driver.Blob = &fileBlob{f, fi}
	for _, p := range []string{"mid.zip", "deep.zip", "payload.bin"} {
		a, err := Open(ctx, b, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if b, err = a.OpenBlob(ctx, p); err != nil {
			tb.Fatal(err)
		}
	}
	return b, func() { f.Close() }
}

func BenchmarkNestedStoredRead(b *testing.B) {
	dir := b.TempDir()
	for _, size := range []int64{1 << 20, 16 << 20, 128 << 20} {
		b.Run(fmt.Sprintf("outer=%dMiB", size>>20), func(b *testing.B) {
			blob, done := openNest(b, buildNest(b, dir, size))
			defer done()
			ctx := context.Background()
			p := make([]byte, 1024)
			b.ReportAllocs()
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				if _, err := blob.ReadAt(ctx, p, 1000); err != nil && err != io.EOF {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNestedStoredAllocs checks that a read three stored levels down
// allocates the same whatever the size of the outer archive.
func TestNestedStoredAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 16 MiB archive")
	}
	dir := t.TempDir()
	ctx := context.Background()
	var allocs []float64
	for _, size := range []int64{1 << 20, 16 << 20} {
		blob, done := openNest(t, buildNest(t, dir, size))
		p := make([]byte, 1024)
		allocs = append(allocs, testing.AllocsPerRun(100, func() {
			if n, err := blob.ReadAt(ctx, p, 1000); n != len(p) || err != nil {
				t.Fatal(n, err)
			}
		}))
		if !bytes.Equal(p, innerPayload[1000:2024]) {
			t.Error("wrong bytes")
		}
		done()
	}
	if allocs[0] != allocs[1] {
		t.Errorf("allocs per ReadAt = %v for 1 MiB and 16 MiB outer archives, want equal", allocs)
	}
}
