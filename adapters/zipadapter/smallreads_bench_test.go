package zipadapter_test

import (
	"archive/zip"
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/pipefs/pipefs/vfs"

	_ "github.com/pipefs/pipefs/roots/fileroot"
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
// in Reads of 1 to 3 bytes, and a seekable one again from the middle, and
// a ReaderAt one byte at a time by ReadAt, over the 64 MiB member of a zip
// stored three levels deep in a file, through pipefs. Compare with
// BenchmarkTestFSArchiveZip, the same over archive/zip alone on the
// innermost zip in a file (its members are neither Seekers nor ReaderAts,
// so TestFS reads them once in small Reads), and
// BenchmarkTestFSArchiveZipMemory, with that zip in memory. They take
// seconds to minutes: run them once, -benchtime=1x.
func BenchmarkTestFSNested(b *testing.B) {
	outer, _ := nestedBig(b)
	name := filepath.Join(b.TempDir(), "outer.zip")
	if err := os.WriteFile(name, outer, 0o644); err != nil {
		b.Fatal(err)
	}
	fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(name)+"|zip:mid.zip|zip:inner.zip|zip:", nil)
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
// reader of the innermost zip, in a file.
func BenchmarkTestFSArchiveZip(b *testing.B) {
	_, inner := nestedBig(b)
	name := filepath.Join(b.TempDir(), "inner.zip")
	if err := os.WriteFile(name, inner, 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := zip.OpenReader(name)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for b.Loop() {
		if err := fstest.TestFS(r, "big.bin"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTestFSArchiveZipMemory is BenchmarkTestFSArchiveZip with the
// innermost zip in memory.
func BenchmarkTestFSArchiveZipMemory(b *testing.B) {
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
