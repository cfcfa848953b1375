package cloudtest

import (
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// A GCS is fake-gcs-server's emulator of Google Cloud Storage, in process,
// behind a loopback server that records each request as method, path and
// " Range:" with the range if any. Point gsroot at it by setting
// STORAGE_EMULATOR_HOST to URL.
type GCS struct {
	// Server is the emulator, for writing objects.
	Server *fakestorage.Server
	// URL is the base URL of the loopback server, "http://127.0.0.1:PORT".
	URL string

	ts      *httptest.Server
	mu      sync.Mutex
	reqs    []string
	buckets map[string]bool
}

// StartGCS starts the emulator. The caller must Close it.
func StartGCS() (*GCS, error) {
	ts := httptest.NewUnstartedServer(nil)
	host := ts.Listener.Addr().String()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, Scheme: "http", PublicHost: host})
	if err != nil {
		ts.Close()
		return nil, err
	}
	g := &GCS{Server: srv, ts: ts, buckets: map[string]bool{}}
	h := srv.HTTPHandler()
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		desc := r.Method + " " + r.URL.Path
		if rg := r.Header.Get("Range"); rg != "" {
			desc += " Range:" + rg
		}
		g.mu.Lock()
		g.reqs = append(g.reqs, desc)
		g.mu.Unlock()
		h.ServeHTTP(w, r)
	})
	ts.Start()
	g.URL = ts.URL
	return g, nil
}

// Close stops the emulator.
func (g *GCS) Close() {
	g.ts.Close()
	g.Server.Stop()
}

// Take returns the requests recorded since the last call and forgets
// them.
func (g *GCS) Take() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.reqs
	g.reqs = nil
	return r
}

// Put stores data as the object name of bucket, creating the bucket the
// first time.
func (g *GCS) Put(bucket, name string, data []byte) {
	g.mu.Lock()
	created := g.buckets[bucket]
	g.buckets[bucket] = true
	g.mu.Unlock()
	if !created {
		g.Server.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	}
	g.Server.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: name}, Content: data})
}
