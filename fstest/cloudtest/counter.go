package cloudtest

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// A Counter is a loopback reverse proxy to a server that records every
// request it passes on, and may rewrite them. It can also hold each
// request back for a latency, as a distant server would be, and counts
// the most requests it had under way at once.
type Counter struct {
	// Addr is the proxy's host:port.
	Addr string

	srv     *http.Server
	mu      sync.Mutex
	reqs    []string
	rewrite func(*http.Request)
	latency time.Duration
	active  int // requests under way, from arrival to the end of the answer
	peak    int // the most at once since the last Take
}

// NewCounter starts a proxy to the server at target (host:port). rewrite,
// if not nil, changes each request after it is recorded and before it
// goes on.
func NewCounter(target string, rewrite func(*http.Request)) (*Counter, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &Counter{Addr: l.Addr().String(), rewrite: rewrite}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: target})
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		latency := c.record(Describe(r))
		defer c.end()
		if latency > 0 {
			t := time.NewTimer(latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if c.rewrite != nil {
			c.rewrite(r)
		}
		rp.ServeHTTP(w, r)
	})}
	go c.srv.Serve(l)
	return c, nil
}

// Describe writes a request as a Counter records it: method, request
// URI, then " Range:" and the range, and " If-Match" when it has one.
func Describe(r *http.Request) string {
	desc := r.Method + " " + r.URL.RequestURI()
	if rg := r.Header.Get("Range"); rg != "" {
		desc += " Range:" + rg
	}
	if r.Header.Get("If-Match") != "" {
		desc += " If-Match"
	}
	return desc
}

// record notes a request that arrived, and returns the latency to hold
// it back for.
func (c *Counter) record(desc string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, desc)
	c.active++
	c.peak = max(c.peak, c.active)
	return c.latency
}

// end notes the end of a request's answer.
func (c *Counter) end() {
	c.mu.Lock()
	c.active--
	c.mu.Unlock()
}

// SetLatency holds every request that arrives from now on back for d
// before passing it on, as a distant server would answer later; 0 passes
// them on at once.
func (c *Counter) SetLatency(d time.Duration) {
	c.mu.Lock()
	c.latency = d
	c.mu.Unlock()
}

// Peak returns the most requests that were under way at once (from
// their arrival, latency included, to the end of their answers) since
// the last Take.
func (c *Counter) Peak() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peak
}

// Close stops the proxy.
func (c *Counter) Close() error { return c.srv.Close() }

// Take returns the requests recorded since the last call and forgets
// them; the peak (Peak) starts again from the requests under way.
func (c *Counter) Take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reqs
	c.reqs = nil
	c.peak = c.active
	return r
}
