// Command shapedserver serves a directory over HTTP shaped like an object
// store: every answer waits a latency before its first byte, and each
// body is sent at most at a rate of its own, whatever the others do. It
// is the server of scripts/parallelbench.sh, which compares pipefs cat
// with aria2c and curl on it, and of scripts/arraybench.sh, which
// compares pipefs array with zarr-python and h5py. With -proxy it shapes
// the answers of another server instead, such as a local S3 server
// (scripts/cpbench.sh puts versitygw behind it).
//
//	shapedserver [-addr 127.0.0.1:8080] [-latency 20ms] [-rate 25000000] [-log] DIR
//	shapedserver [-addr ...] [-latency ...] [-rate ...] [-log] -proxy http://127.0.0.1:7070
//
// Files are served with http.ServeContent: single and suffix ranges,
// If-Match and If-None-Match work, with a strong ETag from the file's
// size and modification time. A proxy passes every request on as it came,
// Host header included (so that an S3 signature stays valid), once the
// latency has passed, and sends the answer back as the server gave it.
// -rate is in bytes per second per answer; 0 sends as fast as the
// connection takes. It prints its base URL, then serves until it is
// killed; on SIGINT or SIGTERM it prints the requests served and the most
// it answered at once to standard error.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	latency := flag.Duration("latency", 0, "wait before each answer")
	rate := flag.Int64("rate", 0, "body bytes per second of each answer (0: no cap)")
	logRanges := flag.Bool("log", false, "print each request's path and Range to standard error")
	proxy := flag.String("proxy", "", "pass requests on to the server at this URL instead of serving a directory")
	flag.Parse()
	if (*proxy == "") != (flag.NArg() == 1) {
		fmt.Fprintln(os.Stderr, "usage: shapedserver [-addr ADDR] [-latency D] [-rate BYTES/S] [-log] DIR|-proxy URL")
		os.Exit(2)
	}
	s := &server{dir: flag.Arg(0), latency: *latency, rate: *rate, log: *logRanges}
	if *proxy != "" {
		u, err := url.Parse(*proxy)
		if err != nil || u.Host == "" {
			fmt.Fprintf(os.Stderr, "shapedserver: -proxy %q: want a URL such as http://127.0.0.1:7070\n", *proxy)
			os.Exit(2)
		}
		s.proxy = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host // part of an S3 signature
		}}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shapedserver:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: s}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "shapedserver:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "shapedserver: %d requests, at most %d at once\n", s.requests.Load(), s.peak.Load())
}

type server struct {
	dir      string
	proxy    *httputil.ReverseProxy // nil: serve dir
	latency  time.Duration
	rate     int64
	log      bool
	requests atomic.Int64
	active   atomic.Int64
	peak     atomic.Int64
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if s.log {
		fmt.Fprintf(os.Stderr, "%s %s %s\n", r.Method, r.URL.Path, r.Header.Get("Range"))
	}
	for n := s.active.Add(1); ; {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	defer s.active.Add(-1)
	if s.proxy != nil {
		if s.wait(r) {
			s.proxy.ServeHTTP(s.paced(w, r), r)
		}
		return
	}
	name := path.Clean("/" + r.URL.Path)
	f, err := os.Open(filepath.Join(s.dir, filepath.FromSlash(name)))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		http.NotFound(w, r)
		return
	}
	if !s.wait(r) {
		return
	}
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, fi.Size(), fi.ModTime().UnixNano()))
	http.ServeContent(s.paced(w, r), r, name, fi.ModTime(), f)
}

// wait waits the latency before the answer to r; it reports false when
// the client went away first.
func (s *server) wait(r *http.Request) bool {
	if s.latency <= 0 {
		return true
	}
	t := time.NewTimer(s.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// paced returns w, sending at most s.rate bytes per second when it is set.
func (s *server) paced(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	if s.rate <= 0 {
		return w
	}
	return &pacedWriter{ResponseWriter: w, ctx: r.Context(), rate: s.rate}
}

// A pacedWriter sends a body at most at rate bytes per second from its
// first byte, in chunks of 16 KiB.
type pacedWriter struct {
	http.ResponseWriter
	ctx   context.Context
	rate  int64
	start time.Time
	sent  int64
}

func (w *pacedWriter) Write(p []byte) (int, error) {
	if w.start.IsZero() {
		w.start = time.Now()
	}
	var n int
	for len(p) > 0 {
		k := min(len(p), 16<<10)
		due := w.start.Add(time.Duration(float64(w.sent) / float64(w.rate) * float64(time.Second)))
		if d := time.Until(due); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-w.ctx.Done():
				t.Stop()
				return n, w.ctx.Err()
			}
		}
		m, err := w.ResponseWriter.Write(p[:k])
		n += m
		w.sent += int64(m)
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}
