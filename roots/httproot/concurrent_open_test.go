package httproot_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// Concurrent opens of one object share its first read: one request.
func TestConcurrentOpensShareTheFirstRead(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{"d/a.txt": []byte("shared open")})
	srv.SetLatency(50 * time.Millisecond)
	fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/d/", fastOpts(3))
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			f, err := fsys.Open("a.txt")
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			if b, err := io.ReadAll(f); err != nil || string(b) != "shared open" {
				t.Errorf("ReadAll = %q, %v", b, err)
			}
		})
	}
	wg.Wait()
	if got := srv.Requests(); got != 1 {
		t.Errorf("8 concurrent opens made %d requests, want 1:\n%s", got, srv.LogString())
	}
}
