package httproot_test

import (
	"archive/zip"
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

// TestQuery checks that the query of the URL goes with every request,
// also for files opened beneath a directory URL.
func TestQuery(t *testing.T) {
	files := map[string][]byte{"a b.txt": []byte("spaced"), "d/c.txt": textBytes(200<<10, 1)}
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"dir/x.zip":   fstest.ZipBytes(files, zip.Deflate),
		"dir/a b.txt": []byte("spaced"),
		"dir/sub/f":   []byte("beneath"),
	})
	ctx := context.Background()
	fsys, err := vfs.OpenFS(ctx, srv.URL()+"/dir/x.zip?token=s%26cret&x=1|zip:", opts())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	mustReadFile(t, fsys, "d/c.txt", files["d/c.txt"])

	dir, err := vfs.Open(ctx, srv.URL()+"/dir/?token=s%26cret&x=1", opts())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	dfs, err := vfs.OpenFS(ctx, srv.URL()+"/dir/?token=s%26cret&x=1", opts())
	if err != nil {
		t.Fatal(err)
	}
	defer dfs.Close()
	mustReadFile(t, dfs, "a b.txt", []byte("spaced"))
	mustReadFile(t, dfs, "sub/f", []byte("beneath"))
	if _, err := fs.ReadDir(dfs, "."); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("ReadDir of a directory URL error = %v, want errors.ErrUnsupported", err)
	}
	if _, err := fs.ReadFile(dfs, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) error = %v, want fs.ErrNotExist", err)
	}
	f, err := vfs.Open(ctx, srv.URL()+"/dir/a%20b.txt?token=s%26cret&x=1", opts())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	log := srv.Log()
	if len(log) == 0 {
		t.Fatal("no requests")
	}
	for _, r := range log {
		if r.Query != "token=s%26cret&x=1" {
			t.Errorf("request %v lacks the query", r)
		}
	}
}

// TestRequestPaths checks what is sent: the suffix read at open, then
// conditional ranges with the ETag seen at open.
func TestRequestHeaders(t *testing.T) {
	data := fstest.RandomBytes(300<<10, 1)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"f": data})
	f := openFile(t, srv.URL()+"/f", opts())
	p := make([]byte, 10)
	if _, err := f.ReadAt(p, 5); err != nil {
		t.Fatal(err)
	}
	log := srv.Log()
	if len(log) != 2 || log[0].Range != "bytes=-65536" || log[0].Cond != "" ||
		!strings.HasPrefix(log[1].Range, "bytes=0-") || !strings.HasPrefix(log[1].Cond, `"`) {
		t.Errorf("requests:\n%s", srv.LogString())
	}
}

// TestTreeStats checks the counts a tree keeps, and its As hook.
func TestTreeStats(t *testing.T) {
	data := fstest.RandomBytes(300<<10, 1)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"f": data})
	p, err := vfs.Parse(srv.URL() + "/f")
	if err != nil {
		t.Fatal(err)
	}
	b := httproot.NewBackend(p[0], nil, nil)
	tree := remote.NewTree(b, nil, remote.Options{Cache: cache.New(cache.Config{})})
	blob, err := tree.OpenBlob(context.Background(), b.File())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1000)
	if _, err := blob.ReadAt(context.Background(), buf, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := blob.ReadAt(context.Background(), buf, 10); err != nil {
		t.Fatal(err)
	}
	got := tree.Stats()
	want := cache.Counts{Hits: 1, Misses: 1, Requests: 2, Bytes: 65536 + 256<<10}
	if got != want || srv.Requests() != got.Requests || srv.Bytes() != got.Bytes {
		t.Errorf("Stats() = %+v, want %+v; the server saw %d requests, %d bytes", got, want, srv.Requests(), srv.Bytes())
	}
	var hb *httproot.Backend
	if !tree.As(&hb) || hb != b {
		t.Errorf("As(**Backend) did not set the backend")
	}
}
