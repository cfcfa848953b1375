package httproot_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// readReplaced opens url with cache c and checks that it reads want: at
// r.Offset first (where a cached index of another version would resume at
// a checkpoint), then whole.
func readReplaced(t *testing.T, url string, c *vfs.Cache, r fstest.Replacement, want []byte) {
	t.Helper()
	f, err := vfs.OpenFile(context.Background(), url, &vfs.Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 64<<10)
	n, err := f.ReadAt(p, r.Offset)
	if err != nil && err != io.EOF {
		t.Fatalf("ReadAt(%d): %v", r.Offset, err)
	}
	if !bytes.Equal(p[:n], want[r.Offset:r.Offset+int64(len(p))]) {
		t.Fatalf("ReadAt(%d) read %d bytes that are not the object's", r.Offset, n)
	}
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, want %d (content differs)", len(got), len(want))
	}
}

// An object replaced by one of the same size, behind a server that sends
// a strong ETag and no Last-Modified, is read anew in the same process and
// the same vfs.Cache: the tar table, gzip checkpoints and zip member index
// of the old object are keyed by its ETag, so the new one never meets
// them. An object left alone still reuses them: opening it again costs
// the one request that learns its version.
func TestReplacedObject(t *testing.T) {
	for _, r := range fstest.Replacements(t) {
		t.Run(r.Name, func(t *testing.T) {
			srv := fstest.NewHTTPServer(t, map[string][]byte{r.Name: r.Old})
			srv.SetETagStyle(fstest.StrongETagOnly)
			url := srv.URL() + "/" + r.Name + r.Pipeline
			c := vfs.NewCache(0)
			if n, _ := counted(t, srv, func() { readReplaced(t, url, c, r, r.WantOld) }); n < 2 {
				t.Fatalf("the first open made %d requests; the test needs more than the first read", n)
			}
			if n, _ := counted(t, srv, func() { readReplaced(t, url, c, r, r.WantOld) }); n != 1 {
				t.Errorf("reopening the unchanged object made %d requests, want 1:\n%s", n, srv.LogString())
			}
			srv.Set(r.Name, r.New)
			readReplaced(t, url, c, r, r.WantNew)
			if n, _ := counted(t, srv, func() { readReplaced(t, url, c, r, r.WantNew) }); n != 1 {
				t.Errorf("reopening the replaced object made %d requests, want 1:\n%s", n, srv.LogString())
			}
		})
	}
}
