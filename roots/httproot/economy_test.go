package httproot_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// textBytes returns n bytes that compress about 3:1.
func textBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"pipefs ", "range ", "request ", "zip ", "member ", "cache ", "block ", "\n"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(10) == 0 {
			fmt.Fprintf(&b, "%d ", r.Int64())
		}
	}
	return b.Bytes()[:n]
}

// opts returns options with a fresh cache, so that counts do not depend
// on what other tests left in the process-wide one.
func opts() *vfs.Options {
	o := &httproot.Options{}
	o.Remote.Cache = cache.New(cache.Config{})
	return &vfs.Options{Schemes: map[string]any{"http": o}}
}

// counted runs f and returns the requests and bytes the server saw.
func counted(t testing.TB, srv *fstest.HTTPServer, f func()) (int64, int64) {
	t.Helper()
	srv.Reset()
	f()
	return srv.Requests(), srv.Bytes()
}

func mustReadFile(t testing.TB, fsys fs.FS, name string, want []byte) {
	t.Helper()
	got, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatalf("ReadFile(%q) error = %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("ReadFile(%q) = %d bytes, want %d (content differs)", name, len(got), len(want))
	}
}

func TestRequestCounts(t *testing.T) {
	small := map[string][]byte{"a.txt": []byte("alpha"), "b/c.txt": textBytes(5000, 1)}
	many := fstest.ManyFiles(10114)
	big := map[string][]byte{"big.bin": fstest.RandomBytes(5<<20, 2), "small.txt": []byte("small"), "text.txt": textBytes(3<<20, 3)}
	innerFiles := map[string][]byte{"x.txt": []byte("inner x"), "pad.bin": fstest.RandomBytes(3<<20, 4), "y.txt": textBytes(9000, 5)}
	innerZip := fstest.ZipBytes(innerFiles, zip.Deflate)
	smallInner := fstest.ZipBytes(map[string][]byte{"x.txt": []byte("inner x")}, zip.Deflate)
	manyZip := fstest.ZipBytes(many, zip.Deflate)
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"small.zip":  fstest.ZipBytes(small, zip.Deflate),
		"many.zip":   manyZip,
		"many2.zip":  manyZip,
		"big.zip":    fstest.ZipBytesFunc(big, func(n string) uint16 { return map[bool]uint16{true: zip.Store, false: zip.Deflate}[n == "big.bin"] }),
		"nested.zip": fstest.ZipBytes(map[string][]byte{"pad.bin": fstest.RandomBytes(2<<20, 6), "in/inner.zip": innerZip, "in/small.zip": smallInner, "z.txt": []byte("z")}, zip.Store),
		"plain.txt":  []byte("plain"),
	})
	ctx := context.Background()
	cases := []struct {
		name     string
		pipeline string
		run      func(t *testing.T, fsys fs.FS)
		requests int64
	}{
		{"open small zip", "/small.zip|zip:", nil, 1},
		{"list small zip", "/small.zip|zip:", func(t *testing.T, fsys fs.FS) {
			fs.WalkDir(fsys, ".", func(string, fs.DirEntry, error) error { return nil })
		}, 1},
		{"read small member", "/small.zip|zip:", func(t *testing.T, fsys fs.FS) { mustReadFile(t, fsys, "b/c.txt", small["b/c.txt"]) }, 1},
		{"list 10114-entry zip", "/many.zip|zip:", func(t *testing.T, fsys fs.FS) {
			fs.WalkDir(fsys, ".", func(string, fs.DirEntry, error) error { return nil })
		}, 2},
		{"read member of 10114-entry zip", "/many2.zip|zip:", func(t *testing.T, fsys fs.FS) {
			mustReadFile(t, fsys, "d07/file-005007.txt", many["d07/file-005007.txt"])
		}, 3},
		{"list 10114-entry zip again (grown suffix)", "/many.zip|zip:", func(t *testing.T, fsys fs.FS) {
			fs.WalkDir(fsys, ".", func(string, fs.DirEntry, error) error { return nil })
		}, 1},
		{"read small member of big zip", "/big.zip|zip:", func(t *testing.T, fsys fs.FS) { mustReadFile(t, fsys, "small.txt", big["small.txt"]) }, 2},
		{"read stored 5 MiB member", "/big.zip|zip:", func(t *testing.T, fsys fs.FS) { mustReadFile(t, fsys, "big.bin", big["big.bin"]) }, 3},
		{"read deflated 3 MiB member", "/big.zip|zip:", func(t *testing.T, fsys fs.FS) { mustReadFile(t, fsys, "text.txt", big["text.txt"]) }, 2},
		{"read member of nested stored zip", "/nested.zip|zip:in/inner.zip|zip:", func(t *testing.T, fsys fs.FS) { mustReadFile(t, fsys, "y.txt", innerFiles["y.txt"]) }, 3},
		{"read member of small nested zip", "/nested.zip|zip:in/small.zip|zip:", func(t *testing.T, fsys fs.FS) { mustReadFile(t, fsys, "x.txt", []byte("inner x")) }, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fsys *vfs.FS
			reqs, n := counted(t, srv, func() {
				var err error
				fsys, err = vfs.OpenFS(ctx, srv.URL()+tc.pipeline, opts())
				if err != nil {
					t.Fatal(err)
				}
				if tc.run != nil {
					tc.run(t, fsys)
				}
			})
			defer fsys.Close()
			t.Logf("%s: %d requests, %d bytes\n%s", tc.name, reqs, n, srv.LogString())
			if reqs != tc.requests {
				t.Errorf("%s: %d requests, want %d", tc.name, reqs, tc.requests)
			}
		})
	}
}
