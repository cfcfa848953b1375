package main

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// manyZip writes a zip of 200 directories of 10 subdirectories of 100
// one-byte stored files, and 201 files at the top (200,201 members, zip64
// end records), the archive of scripts/manyzip.sh, and returns its path.
func manyZip(tb testing.TB) string {
	tb.Helper()
	name := filepath.Join(tb.TempDir(), "many.zip")
	f, err := os.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w := zip.NewWriter(bw)
	add := func(name string) {
		fw, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			tb.Fatal(err)
		}
		fw.Write([]byte{'x'})
	}
	for d := range 200 {
		for f := range 1000 {
			add(fmt.Sprintf("dir%03d/sub%d/file%04d.txt", d, f%10, f))
		}
	}
	for i := range 201 {
		add(fmt.Sprintf("top%d.txt", i))
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return name
}

// A writeCounter counts the writes and bytes that reach it.
type writeCounter struct{ writes, bytes int64 }

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	w.bytes += int64(len(p))
	return len(p), nil
}

// BenchmarkLsRecursive runs `pipefs ls -R` of the 200,201-member zip of
// scripts/manyzip.sh in the process, with the disk cache off: opening the
// file, indexing the archive, walking it, and writing 202,401 lines. It
// reports the writes that reach standard output per listing, which the
// output's buffer keeps to a few dozen.
func BenchmarkLsRecursive(b *testing.B) {
	name := manyZip(b)
	b.Setenv("PIPEFS_CACHE_DIR", "off")
	ctx := context.Background()
	var out writeCounter
	for b.Loop() {
		if code := run(ctx, []string{"ls", "-R", name}, &out, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.SetBytes(out.bytes / int64(b.N))
	b.ReportMetric(float64(out.writes)/float64(b.N), "writes/op")
	b.ReportMetric(200_201*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}
