package zipadapter_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
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
	big := make([]byte, bigSize)
	rand.NewChaCha8([32]byte{1}).Read(big)
	inner = store("big.bin", big)
	return store("mid.zip", store("inner.zip", inner)), inner
}

// bigSize is the size of big.bin, the member that the TestFS benchmarks
// read.
const bigSize = 64 << 20

// BenchmarkTestFSNested runs testing/fstest.TestFS, which reads each file
// in Reads of 1 to 3 bytes, and a seekable one again from the middle, and
// a ReaderAt one byte at a time by ReadAt, over the 64 MiB member of a zip
// stored three levels deep in a file, through pipefs. Compare with
// BenchmarkTestFSArchiveZip, the same over archive/zip alone on the
// innermost zip in a file (its members are neither Seekers nor ReaderAts,
// so TestFS reads them once in small Reads), and
// BenchmarkTestFSArchiveZipMemory, with that zip in memory. Each reports
// the reads TestFS made of the member (reads/op) and the time of one
// (ns/read). They take seconds to a minute: run them once,
// -benchtime=1x.
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
	benchTestFS(b, fsys)
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
	benchTestFS(b, r)
}

// BenchmarkTestFSArchiveZipMemory is BenchmarkTestFSArchiveZip with the
// innermost zip in memory.
func BenchmarkTestFSArchiveZipMemory(b *testing.B) {
	_, inner := nestedBig(b)
	r, err := zip.NewReader(bytes.NewReader(inner), int64(len(inner)))
	if err != nil {
		b.Fatal(err)
	}
	benchTestFS(b, r)
}

// benchTestFS runs testing/fstest.TestFS over fsys, which holds big.bin,
// counting the reads of its files.
func benchTestFS(b *testing.B, fsys fs.FS) {
	b.ReportAllocs()
	b.SetBytes(bigSize)
	c := &countFS{fsys: fsys}
	for b.Loop() {
		if err := fstest.TestFS(c, "big.bin"); err != nil {
			b.Fatal(err)
		}
	}
	reads := float64(c.reads.Load())
	b.ReportMetric(reads/float64(b.N), "reads/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reads, "ns/read")
}

// A countFS is an fs.FS that counts the Read and ReadAt calls on the files
// it opens. Its files are io.Seekers and io.ReaderAts when those of the FS
// it wraps are, so that TestFS tests what it would test without it; its
// directories are those of that FS.
type countFS struct {
	fsys  fs.FS
	reads atomic.Int64
}

func (c *countFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if info.IsDir() {
		return f, nil
	}
	cf := countFile{f, &c.reads}
	ra, okRA := f.(io.ReaderAt)
	s, okS := f.(io.Seeker)
	if okRA && okS {
		return &countSeekFile{cf, ra, s}, nil
	}
	if okRA || okS {
		return nil, fmt.Errorf("%s: countFS wraps files that are both io.ReaderAt and io.Seeker or neither", name)
	}
	return &cf, nil
}

// A countFile counts its Reads.
type countFile struct {
	fs.File
	reads *atomic.Int64
}

func (f *countFile) Read(p []byte) (int, error) {
	f.reads.Add(1)
	return f.File.Read(p)
}

// A countSeekFile is a countFile that seeks and counts its ReadAts too.
type countSeekFile struct {
	countFile
	ra io.ReaderAt
	s  io.Seeker
}

func (f *countSeekFile) ReadAt(p []byte, off int64) (int, error) {
	f.reads.Add(1)
	return f.ra.ReadAt(p, off)
}

func (f *countSeekFile) Seek(off int64, whence int) (int64, error) { return f.s.Seek(off, whence) }
