package arraycodec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func mustZstd(t testing.TB, b []byte) []byte {
	e, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return e.EncodeAll(b, nil)
}

// seedVectors adds the numcodecs vectors of dir to f's corpus.
func seedVectors(f *testing.F, dir string) {
	names, _ := filepath.Glob(filepath.Join(numcodecsDir(f), dir, "codec.*", "encoded.*.dat"))
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil && len(b) <= 4096 {
			f.Add(b)
		}
	}
}

// fuzzMax bounds the output of fuzzed decoders: with it, no input can make
// them allocate more than a few megabytes.
const fuzzMax = 1 << 20

func FuzzBlosc(f *testing.F) {
	seedVectors(f, "blosc")
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := Blosc(b, fuzzMax)
		if err == nil && len(out) > fuzzMax {
			t.Fatalf("Blosc returned %d bytes, max %d", len(out), fuzzMax)
		}
	})
}

func FuzzBloscLZ(f *testing.F) {
	f.Add(blosclzExample, 272)
	f.Fuzz(func(t *testing.T, b []byte, size int) {
		if size < 0 || size > fuzzMax {
			return
		}
		out, err := BloscLZ(b, size)
		if err == nil && len(out) != size {
			t.Fatalf("BloscLZ returned %d bytes, want %d", len(out), size)
		}
	})
}

func FuzzLZ4(f *testing.F) {
	seedVectors(f, "lz4")
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := LZ4(b, fuzzMax)
		if err == nil && len(out) > fuzzMax {
			t.Fatalf("LZ4 returned %d bytes, max %d", len(out), fuzzMax)
		}
	})
}
