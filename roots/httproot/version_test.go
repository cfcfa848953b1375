package httproot_test

import (
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

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
			if n, _ := counted(t, srv, func() { r.Check(t, url, c, r.WantOld) }); n < 2 {
				t.Fatalf("the first open made %d requests; the test needs more than the first read", n)
			}
			if n, _ := counted(t, srv, func() { r.Check(t, url, c, r.WantOld) }); n != 1 {
				t.Errorf("reopening the unchanged object made %d requests, want 1:\n%s", n, srv.LogString())
			}
			srv.Set(r.Name, r.New)
			r.Check(t, url, c, r.WantNew)
			if n, _ := counted(t, srv, func() { r.Check(t, url, c, r.WantNew) }); n != 1 {
				t.Errorf("reopening the replaced object made %d requests, want 1:\n%s", n, srv.LogString())
			}
		})
	}
}
