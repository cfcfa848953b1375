package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/fstest/cloudtest"
	"github.com/pipefs/pipefs/vfs"
)

// TestServeSidecarsAtClose: a layer that serve opened for a request keeps
// the server's context, not the request's: when the layer is closed,
// after the request is over, it writes the gzip checkpoints that the
// listing learned as sidecars; once the server's context is cancelled
// (SIGINT), closing it writes nothing.
func TestServeSidecarsAtClose(t *testing.T) {
	gcs, err := cloudtest.StartGCS()
	if err != nil {
		t.Fatal(err)
	}
	defer gcs.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", gcs.URL)
	tgz := fstest.TarGzBytes(map[string][]byte{"big.bin": fstest.RandomBytes(3<<19, 5), "a.txt": []byte("alpha\n")})
	writes := func() int {
		n := 0
		for _, r := range gcs.Take() {
			if strings.HasPrefix(r, "POST /upload/") {
				n++
			}
		}
		return n
	}
	for _, stopped := range []bool{false, true} {
		// Each round is another process, with an object of its own.
		name := fmt.Sprintf("x-%v.tar.gz", stopped)
		gcs.Put("serveside", "d/"+name, tgz)
		gcs.Take()
		o := &vfs.Options{Cache: vfs.NewCache(0), Sidecar: vfs.SidecarWrite}
		ctx, stop := context.WithCancel(context.Background())
		root, err := vfs.OpenFS(ctx, "gs://serveside/d/", o)
		if err != nil {
			t.Fatal(err)
		}
		s := newServer(root, o, nil, true, defaultRevalidate)
		// The request's context ends with the request, as net/http's.
		rctx, done := context.WithCancel(context.Background())
		req := httptest.NewRequest("GET", "/"+name+"/?format=json", nil).WithContext(rctx)
		req.Host = "127.0.0.1:8080"
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		done()
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "big.bin") {
			t.Fatalf("GET /%s/: %d\n%s", name, rec.Code, rec.Body)
		}
		if n := writes(); n != 1 {
			t.Errorf("the listing wrote %d sidecars, want 1 (the tar table)", n)
		}
		if stopped {
			stop()
		}
		s.Close()
		want := 2 // the gzip head and checkpoints
		if stopped {
			want = 0
		}
		if n := writes(); n != want {
			t.Errorf("closing the server (its context cancelled: %v) wrote %d sidecars, want %d", stopped, n, want)
		}
		stop()
		root.Close()
	}
}
