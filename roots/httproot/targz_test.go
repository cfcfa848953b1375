package httproot_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/taradapter"
)

func tarGz(t testing.TB, files map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[name])
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestRequestCountsTarGz: a tar.gz has no index, so listing it reads the
// whole compressed stream, in as few requests as readahead allows.
func TestRequestCountsTarGz(t *testing.T) {
	files := map[string][]byte{"a.txt": []byte("alpha"), "d/b.txt": textBytes(400<<10, 1), "d/c.bin": fstest.RandomBytes(300<<10, 2)}
	tgz := tarGz(t, files)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"x.tar.gz": tgz, "small.tar.gz": tarGz(t, map[string][]byte{"a.txt": []byte("alpha")})})
	ctx := context.Background()
	for _, tc := range []struct {
		name, pipeline, file string
		want                 []byte
		requests             int64
	}{
		{"small tar.gz", "/small.tar.gz|gzip:|pipefs.tar:", "a.txt", []byte("alpha"), 1},
		{"tar.gz member", "/x.tar.gz|gzip:|pipefs.tar:", "d/c.bin", files["d/c.bin"], 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			fsys, err := vfs.OpenFS(ctx, srv.URL()+tc.pipeline, opts())
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			mustReadFile(t, fsys, tc.file, tc.want)
			t.Logf("%d requests, %d bytes (the archive has %d)\n%s", srv.Requests(), srv.Bytes(), len(tgz), srv.LogString())
			if srv.Requests() != tc.requests {
				t.Errorf("%d requests, want %d", srv.Requests(), tc.requests)
			}
		})
	}
	fstest.Run(t, fstest.Case{Pipeline: srv.URL() + "/x.tar.gz|gzip:|pipefs.tar:", Files: files, Exhaustive: true})
}

// TestSidecarsNotOnHTTP: a plain HTTP server cannot hold sidecars, so a
// pipeline with sidecars on sends the requests it sends without them.
func TestSidecarsNotOnHTTP(t *testing.T) {
	files := map[string][]byte{"big.bin": fstest.RandomBytes(3<<19, 3), "a.txt": []byte("alpha")}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"x.tar.gz": fstest.TarGzBytes(files)})
	var counts [3]int64
	for i, m := range []vfs.SidecarMode{vfs.SidecarOff, vfs.SidecarRead, vfs.SidecarWrite} {
		o := opts()
		o.Cache, o.Sidecar = vfs.NewCache(0), m
		counts[i], _ = counted(t, srv, func() {
			fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/x.tar.gz|gzip:|pipefs.tar:", o)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			mustReadFile(t, fsys, "a.txt", files["a.txt"])
		})
		if strings.Contains(srv.LogString(), ".pipefs") {
			t.Errorf("sidecars %v: a request for a sidecar:\n%s", m, srv.LogString())
		}
	}
	if counts[1] != counts[0] || counts[2] != counts[0] {
		t.Errorf("requests with sidecars off, read, write: %d, want the same", counts)
	}
}
