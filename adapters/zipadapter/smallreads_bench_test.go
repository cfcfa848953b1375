package zipadapter_test

import (
	"archive/zip"
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"testing/fstest"

	pfstest "github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// nestedBig returns outer.zip, which stores mid.zip, which stores
// inner.zip, which stores big.bin: 64 MiB of random bytes. It returns
// inner.zip too.
func nestedBig(tb testing.TB) (outer, inner []byte) {
	tb.Helper()
	store := func(name string, body []byte) []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		fw, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			tb.Fatal(err)
		}
		fw.Write(body)
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
		return buf.Bytes()
	}
	big := make([]byte, 64<<20)
	rand.NewChaCha8([32]byte{1}).Read(big)
	inner = store("big.bin", big)
	return store("mid.zip", store("inner.zip", inner)), inner
}

// BenchmarkTestFSNested runs testing/fstest.TestFS, which reads each file
// in Reads of 1 to 3 bytes among others, over the 64 MiB member of a zip
// stored three levels deep, through pipefs. Compare with
// BenchmarkTestFSArchiveZip, the same over archive/zip alone on the
// innermost zip. Each takes a minute or more: run them once,
// -benchtime=1x.
func BenchmarkTestFSNested(b *testing.B) {
	outer, _ := nestedBig(b)
	prefix := pfstest.MapFiles(b, map[string][]byte{"outer.zip": outer})
	fsys, err := vfs.OpenFS(context.Background(), "memory:/"+prefix+"/outer.zip|zip:mid.zip|zip:inner.zip|zip:", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	for b.Loop() {
		if err := fstest.TestFS(fsys, "big.bin"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTestFSArchiveZip is BenchmarkTestFSNested over archive/zip's
// reader of the innermost zip, held in memory.
func BenchmarkTestFSArchiveZip(b *testing.B) {
	_, inner := nestedBig(b)
	r, err := zip.NewReader(bytes.NewReader(inner), int64(len(inner)))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := fstest.TestFS(r, "big.bin"); err != nil {
			b.Fatal(err)
		}
	}
}
