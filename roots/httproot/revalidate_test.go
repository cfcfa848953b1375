package httproot_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestRevalidate asks whether an object is current: one request for its
// last byte, conditional on the version seen at open, for each kind of
// validator a server gives; a replaced object (or, with no validator, one
// of another size) is modified, and a deleted one is missing too.
func TestRevalidate(t *testing.T) {
	ctx := context.Background()
	v1 := fstest.RandomBytes(100<<10, 1)
	for _, tc := range []struct {
		name  string
		style fstest.ETagStyle
		next  []byte
		cond  bool // the request carries a precondition
	}{
		{"strong etag", fstest.StrongETag, fstest.RandomBytes(100<<10, 2), true},
		{"weak etag", fstest.WeakETag, fstest.RandomBytes(100<<10, 2), true},
		{"last-modified", fstest.NoETag, fstest.RandomBytes(100<<10, 2), true},
		{"no validator, new size", fstest.NoValidator, fstest.RandomBytes(90<<10, 2), false},
		{"empty object", fstest.StrongETag, []byte("x"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := v1
			if tc.name == "empty object" {
				first = nil
			}
			srv := fstest.NewHTTPServer(t, map[string][]byte{"f": first})
			srv.SetETagStyle(tc.style)
			f := openFile(t, srv.URL()+"/f", fastOpts(3))
			var rv driver.Revalidator
			if !f.As(&rv) {
				t.Fatal("the file's blob is not a driver.Revalidator")
			}
			srv.Reset()
			if err := rv.Revalidate(ctx); err != nil {
				t.Fatalf("Revalidate() of the unchanged object = %v\n%s", err, srv.LogString())
			}
			log := srv.Log()
			if len(log) != 1 || log[0].Range != "bytes=-1" || (log[0].Cond != "") != tc.cond || log[0].Bytes > 1 {
				t.Errorf("Revalidate() sent %d requests, want one for the last byte (conditional: %v):\n%s", len(log), tc.cond, srv.LogString())
			}
			srv.Set("f", tc.next)
			if err := rv.Revalidate(ctx); !errors.Is(err, driver.ErrModified) || errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Revalidate() of the replaced object = %v, want driver.ErrModified\n%s", err, srv.LogString())
			}
			srv.Inject(fstest.Fault{Kind: fstest.FaultStatus, Status: http.StatusNotFound})
			if err := rv.Revalidate(ctx); !errors.Is(err, driver.ErrModified) || !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Revalidate() of the deleted object = %v, want driver.ErrModified and fs.ErrNotExist", err)
			}
			if n := srv.Requests(); n != 3 {
				t.Errorf("three revalidations made %d requests, want 3\n%s", n, srv.LogString())
			}
		})
	}
}
