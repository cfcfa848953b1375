package httproot_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// readThrough opens pipeline with cache c, reads name and returns the
// requests the server saw.
func readThrough(t *testing.T, srv *fstest.HTTPServer, c *vfs.Cache, pipeline, name string, want []byte) int64 {
	t.Helper()
	n, _ := counted(t, srv, func() {
		fsys, err := vfs.OpenFS(context.Background(), srv.URL()+pipeline, &vfs.Options{Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		mustReadFile(t, fsys, name, want)
	})
	return n
}

// Pipelines opened with the same vfs.Cache share the blocks read, the
// archive indexes and the suffix hints: a second open costs one request
// (the first read of the object, which every new tree makes). A new Cache
// shares nothing: it costs what the first open did.
func TestCachesShareNothing(t *testing.T) {
	files := map[string][]byte{"a.txt": []byte("alpha"), "d/b.txt": textBytes(400<<10, 1), "d/c.bin": fstest.RandomBytes(300<<10, 2)}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"x.tar": tarOf(t, files), "x.tar.gz": tarGz(t, files)})
	for _, pipeline := range []string{"/x.tar|pipefs.tar:", "/x.tar.gz|gzip:|pipefs.tar:"} {
		t.Run(pipeline, func(t *testing.T) {
			c1 := vfs.NewCache(0)
			first := readThrough(t, srv, c1, pipeline, "d/c.bin", files["d/c.bin"])
			if first < 2 {
				t.Fatalf("the first open made %d requests; the test needs more than the first read", first)
			}
			t.Logf("first open: %d requests", first)
			if n := readThrough(t, srv, c1, pipeline, "d/c.bin", files["d/c.bin"]); n != 1 {
				t.Errorf("a second open with the same cache made %d requests, want 1", n)
			}
			if n := readThrough(t, srv, vfs.NewCache(0), pipeline, "d/c.bin", files["d/c.bin"]); n != first {
				t.Errorf("an open with a new cache made %d requests, want %d as the first", n, first)
			}
		})
	}
}

// tarOf returns an uncompressed tar of files.
func tarOf(t testing.TB, files map[string][]byte) []byte {
	tgz := tarGz(t, files)
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A Cache's budget bounds what it holds: the blocks of a large remote
// object and the checkpoint index of a gzip stream together, and
// SetBudget shrinks it.
func TestCacheBudgetBoundsBlocksAndIndexes(t *testing.T) {
	big := fstest.RandomBytes(8<<20, 3)
	text := textBytes(8<<20, 4)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	srv := fstest.NewHTTPServer(t, map[string][]byte{"big.bin": big, "t.gz": gz.Bytes()})
	const budget = 2 << 20
	c := vfs.NewCache(budget)
	ctx := context.Background()
	for _, tc := range []struct {
		url  string
		want []byte
	}{{srv.URL() + "/big.bin", big}, {srv.URL() + "/t.gz|gzip:", text}} {
		f, err := vfs.Open(ctx, tc.url, &vfs.Options{Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, f)
		f.Close()
		if !bytes.Equal(got, tc.want) {
			t.Fatalf("reading %s: %d bytes, want %d", tc.url, len(got), len(tc.want))
		}
		if c.Size() > budget || c.Size() == 0 {
			t.Errorf("after reading %s the cache holds %d bytes, want (0, %d]", tc.url, c.Size(), budget)
		}
	}
	c.SetBudget(64 << 10)
	if c.Size() > 64<<10 {
		t.Errorf("after SetBudget(64 KiB) the cache holds %d bytes", c.Size())
	}
}
