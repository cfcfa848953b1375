package httproot_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// TestDefaultClientKeepsConnections opens 32 objects of one host at once,
// twice, with the default client: the second 32 requests find the
// connections of the first idle and open none (with
// http.DefaultTransport's 2 idle connections per host, they would open
// 30). The server answers a round only once all its requests have
// arrived, so that each round has 32 requests in flight.
func TestDefaultClientKeepsConnections(t *testing.T) {
	const n = 32
	var (
		conns   atomic.Int64
		mu      sync.Mutex
		arrived int
		full    = make(chan struct{}) // closed when a round has arrived
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived++
		wait := full
		if arrived == n {
			close(full)
			arrived, full = 0, make(chan struct{})
		}
		mu.Unlock()
		select {
		case <-wait:
		case <-r.Context().Done():
			return
		}
		http.ServeContent(w, r, r.URL.Path, time.Unix(0, 0), bytes.NewReader([]byte(r.URL.Path)))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	round := func(prefix string) int64 {
		before := conns.Load()
		fsys, err := vfs.OpenFS(context.Background(), srv.URL+"/", &vfs.Options{Cache: vfs.NewCache(0)})
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				name := fmt.Sprintf("%s%d", prefix, i)
				f, err := fsys.Open(name)
				if err != nil {
					t.Error(err)
					return
				}
				defer f.Close()
				if b, err := io.ReadAll(f); err != nil || string(b) != "/"+name {
					t.Errorf("%s: %q, %v", name, b, err)
				}
			})
		}
		wg.Wait()
		return conns.Load() - before
	}
	if got := round("a"); got > n {
		t.Errorf("first round: %d connections for %d requests", got, n)
	}
	// A connection returns to the idle pool just after its answer is
	// read: allow a few to be late.
	if got := round("b"); got > 4 {
		t.Errorf("second round: %d new connections, want the first round's reused", got)
	}
}
