package taradapter

import (
	"archive/tar"
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// manyFiles returns a tar archive of n small members in 100 directories.
func manyFiles(b *testing.B, n int) []byte {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for i := range n {
		data := fmt.Sprintf("member %d\n", i)
		h := &tar.Header{Name: fmt.Sprintf("d%02d/f%05d.txt", i%100, i), Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(1e9, 0)}
		if err := w.WriteHeader(h); err != nil {
			b.Fatal(err)
		}
		w.Write([]byte(data))
	}
	w.Close()
	return buf.Bytes()
}

// BenchmarkOpenMember opens a 10,000-member archive and reads one member:
// "first" scans every time (the cache emptied), "cached" finds the index
// built by an earlier open. reads/op counts ReadAt calls on the archive.
func BenchmarkOpenMember(b *testing.B) {
	data := manyFiles(b, 10000)
	info := &driver.FileInfo{FName: "many.tar", FSize: int64(len(data)), FMode: 0o444, FModTime: time.Unix(1e9, 0)}
	const url = "memory:/BenchmarkOpenMember/many.tar"
	name, want := "d42/f05042.txt", "member 5042\n"
	for _, cached := range []bool{false, true} {
		b.Run(map[bool]string{false: "first", true: "cached"}[cached], func(b *testing.B) {
			vo := &vfs.Options{Cache: vfs.NewCache(0)}
			cb := &countingBlob{Blob: driver.BytesBlob(data, info)}
			ctx := b.Context()
			if cached {
				if _, err := openShared(cb, url, vo).Stat(ctx, "."); err != nil {
					b.Fatal(err)
				}
			}
			cb.reads.Store(0)
			p := make([]byte, 64)
			b.ReportAllocs()
			for b.Loop() {
				if !cached {
					vo.Cache.Purge()
				}
				a := openShared(cb, url, vo)
				m, err := a.OpenBlob(ctx, name)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := m.ReadAt(ctx, p, 0)
				if string(p[:n]) != want {
					b.Fatalf("read %q", p[:n])
				}
			}
			b.ReportMetric(float64(cb.reads.Load())/float64(b.N), "reads/op")
		})
	}
}

// BenchmarkPersist compares building the index of a 10,000-member archive
// by a scan (in memory, so no I/O cost) with decoding the table kept on
// disk and building the index from it, as a later process does.
func BenchmarkPersist(b *testing.B) {
	data := manyFiles(b, 10000)
	lim := vfs.Limits{}.Effective()
	ctx := b.Context()
	r := driver.ReaderAt(ctx, driver.BytesBlob(data, nil))
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sc, err := scan(ctx, r, int64(len(data)), lim)
			if err != nil {
				b.Fatal(err)
			}
			buildIndex(sc)
		}
	})
	sc, err := scan(ctx, r, int64(len(data)), lim)
	if err != nil {
		b.Fatal(err)
	}
	kept := encodeScanned(sc)
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		b.ReportMetric(float64(len(kept)), "kept-bytes")
		for b.Loop() {
			sc, err := decodeScanned(kept, int64(len(data)), lim)
			if err != nil {
				b.Fatal(err)
			}
			buildIndex(sc)
		}
	})
}
