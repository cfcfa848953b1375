package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs/driver"
)

// manyEntries returns a zip of 200 directories of 10 subdirectories of 100
// stored files each, and 201 files at the top: 200,201 members (zip64 end
// records), the shape of a large dataset archive.
func manyEntries(tb testing.TB) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	add := func(name string) {
		fw, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(fw, "%s\n", name)
	}
	for d := range 200 {
		for s := range 10 {
			for f := range 100 {
				add(fmt.Sprintf("dir%03d/sub%d/file%04d.txt", d, s, s*100+f))
			}
		}
	}
	for i := range 201 {
		add(fmt.Sprintf("top%d.txt", i))
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkIndex opens an archive of 200,201 members: Open reads the
// central directory and indexes the names ("open"); a recursive listing
// then reads every directory and describes every entry ("walk").
func BenchmarkIndex(b *testing.B) {
	blob := driver.BytesBlob(manyEntries(b), nil)
	ctx := context.Background()
	const members = 200_201
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Open(ctx, blob, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(members*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
	b.Run("walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a, err := Open(ctx, blob, nil)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			err = fs.WalkDir(fstest.TreeFS(a), ".", func(name string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if _, err := d.Info(); err != nil {
					return err
				}
				n++
				return nil
			})
			if err != nil || n != members+200*11+1 {
				b.Fatalf("walked %d names, %v", n, err)
			}
		}
		b.ReportMetric(members*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
}
