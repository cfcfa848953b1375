// Command shapedserver serves a directory over HTTP shaped like an object
// store: every answer waits a latency before its first byte, and each
// body is sent at most at a rate of its own, whatever the others do. It
// is the server of scripts/parallelbench.sh, which compares pipefs cat
// with aria2c and curl on it, and of scripts/arraybench.sh, which
// compares pipefs array with zarr-python and h5py.
//
//	shapedserver [-addr 127.0.0.1:8080] [-latency 20ms] [-rate 25000000] [-log] DIR
//
// Files are served with http.ServeContent: single and suffix ranges,
// If-Match and If-None-Match work, with a strong ETag from the file's
// size and modification time. -rate is in bytes per second per answer;
// 0 sends as fast as the connection takes. It prints its base URL, then
// serves until it is killed; on SIGINT or SIGTERM it prints the requests
// served and the most it answered at once to standard error.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
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
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: shapedserver [-addr ADDR] [-latency D] [-rate BYTES/S] [-log] DIR")
		os.Exit(2)
	}
	s := &server{dir: flag.Arg(0), latency: *latency, rate: *rate, log: *logRanges}
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
	if s.latency > 0 {
		t := time.NewTimer(s.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, fi.Size(), fi.ModTime().UnixNano()))
	var out http.ResponseWriter = w
	if s.rate > 0 {
		out = &pacedWriter{ResponseWriter: w, ctx: r.Context(), rate: s.rate}
	}
	http.ServeContent(out, r, name, fi.ModTime(), f)
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
