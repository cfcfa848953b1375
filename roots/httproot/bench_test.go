package httproot_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// Fixtures are built once per process, at benchmark time only.
var (
	benchOnce  sync.Once
	benchFiles map[string][]byte
)

func benchFixtures() map[string][]byte {
	benchOnce.Do(func() {
		var nested bytes.Buffer
		inner := fstest.ZipBytes(map[string][]byte{"pad.bin": fstest.RandomBytes(4<<20, 1), "want.txt": textBytes(20000, 2)}, zip.Deflate)
		w := zip.NewWriter(&nested)
		for _, m := range []struct {
			name string
			data []byte
		}{{"a/pad.bin", fstest.RandomBytes(8<<20, 3)}, {"a/inner.zip", inner}, {"z.txt", []byte("z")}} {
			f, _ := w.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Store})
			f.Write(m.data)
		}
		w.Close()
		benchFiles = map[string][]byte{
			"many.zip":   fstest.ZipBytes(fstest.ManyFiles(10000), zip.Deflate),
			"big.zip":    bigZip(),
			"nested.zip": nested.Bytes(),
			"zip64.zip":  zip64Fixture(200000),
		}
	})
	return benchFiles
}

// bigZip holds a 32 MiB deflated member and a 64 MiB stored one.
func bigZip() []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.CreateHeader(&zip.FileHeader{Name: "deflated.txt", Method: zip.Deflate})
	f.Write(textBytes(32<<20, 4))
	f, _ = w.CreateHeader(&zip.FileHeader{Name: "stored.bin", Method: zip.Store})
	f.Write(fstest.RandomBytes(64<<20, 5))
	w.Close()
	return buf.Bytes()
}

// zip64Fixture has n empty-ish entries: more than 65535 makes archive/zip
// write zip64 end records.
func zip64Fixture(n int) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := range n {
		f, _ := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("d%03d/f%06d", i%1000, i), Method: zip.Store})
		f.Write([]byte{byte(i)})
	}
	w.Close()
	return buf.Bytes()
}

// benchRemote runs op on a fresh pipeline (a fresh cache, and a query that
// makes the URL new, so every iteration is a first open) at 0 and 20 ms of
// added latency, and reports requests/op and bytes-fetched/op.
func benchRemote(b *testing.B, pipeline string, setBytes int64, op func(b *testing.B, fsys fs.FS)) {
	files := benchFixtures()
	for _, lat := range []time.Duration{0, 20 * time.Millisecond} {
		b.Run(fmt.Sprintf("latency=%dms", lat.Milliseconds()), func(b *testing.B) {
			srv := fstest.NewHTTPServer(b, files)
			srv.SetLatency(lat)
			b.ReportAllocs()
			if setBytes > 0 {
				b.SetBytes(setBytes)
			}
			srv.Reset()
			i := 0
			for b.Loop() {
				i++
				o := &httproot.Options{}
				o.Remote.Cache = cache.New(cache.Config{})
				base, rest, _ := cutPipe(pipeline)
				fsys, err := vfs.OpenFS(context.Background(), fmt.Sprintf("%s%s?i=%d%s", srv.URL(), base, i, rest),
					&vfs.Options{Schemes: map[string]any{"http": o}})
				if err != nil {
					b.Fatal(err)
				}
				op(b, fsys)
				fsys.Close()
			}
			b.ReportMetric(float64(srv.Requests())/float64(i), "requests/op")
			b.ReportMetric(float64(srv.Bytes())/float64(i), "bytes-fetched/op")
		})
	}
}

func cutPipe(p string) (string, string, bool) {
	for i := range p {
		if p[i] == '|' {
			return p[:i], p[i:], true
		}
	}
	return p, "", false
}

func walk(b *testing.B, fsys fs.FS, want int) {
	n := 0
	err := fs.WalkDir(fsys, ".", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil || n != want {
		b.Fatalf("walk: %d files, %v; want %d", n, err, want)
	}
}

func readMember(b *testing.B, fsys fs.FS, name string, size int64) {
	f, err := fsys.Open(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n, err := io.Copy(io.Discard, f)
	if err != nil || n != size {
		b.Fatalf("read %q: %d bytes, %v; want %d", name, n, err, size)
	}
}

func BenchmarkList10000(b *testing.B) {
	benchRemote(b, "/many.zip|zip:", 0, func(b *testing.B, fsys fs.FS) { walk(b, fsys, 10000) })
}

func BenchmarkReadSmallMember(b *testing.B) {
	name := "d07/file-005007.txt"
	size := int64(len(fstest.ManyFiles(10000)[name]))
	benchRemote(b, "/many.zip|zip:", size, func(b *testing.B, fsys fs.FS) { readMember(b, fsys, name, size) })
}

func BenchmarkReadDeflated32MiB(b *testing.B) {
	benchRemote(b, "/big.zip|zip:", 32<<20, func(b *testing.B, fsys fs.FS) { readMember(b, fsys, "deflated.txt", 32<<20) })
}

func BenchmarkReadStored64MiB(b *testing.B) {
	benchRemote(b, "/big.zip|zip:", 64<<20, func(b *testing.B, fsys fs.FS) { readMember(b, fsys, "stored.bin", 64<<20) })
}

func BenchmarkReadNestedMember(b *testing.B) {
	benchRemote(b, "/nested.zip|zip:a/inner.zip|zip:", 20000, func(b *testing.B, fsys fs.FS) { readMember(b, fsys, "want.txt", 20000) })
}

func BenchmarkListZip64(b *testing.B) {
	benchRemote(b, "/zip64.zip|zip:", 0, func(b *testing.B, fsys fs.FS) { walk(b, fsys, 200000) })
}
