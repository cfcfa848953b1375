package cloudtest

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
)

// A Counter is a loopback reverse proxy to a server that records every
// request it passes on, and may rewrite them.
type Counter struct {
	// Addr is the proxy's host:port.
	Addr string

	srv     *http.Server
	mu      sync.Mutex
	reqs    []string
	rewrite func(*http.Request)
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
		c.record(Describe(r))
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

func (c *Counter) record(desc string) {
	c.mu.Lock()
	c.reqs = append(c.reqs, desc)
	c.mu.Unlock()
}

// Close stops the proxy.
func (c *Counter) Close() error { return c.srv.Close() }

// Take returns the requests recorded since the last call and forgets
// them.
func (c *Counter) Take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reqs
	c.reqs = nil
	return r
}
