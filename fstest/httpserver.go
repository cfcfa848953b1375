package fstest

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// HTTPServer is an HTTP server on 127.0.0.1 for the tests of remote roots.
// It serves files from a map (and, for names the map lacks, from an fs.FS)
// with http.ServeContent, so single and suffix ranges, If-Match,
// If-None-Match and If-Unmodified-Since work as in net/http, with a strong
// ETag derived from the content. It counts every request and the body
// bytes it sends, keeps a log of the requests for failure messages, and
// injects faults on demand (see [Fault]).
//
// Names are fs names: the file "d/a.zip" is served at URL()+"/d/a.zip".
// An HTTPServer is safe for concurrent use.
type HTTPServer struct {
	srv *httptest.Server
	fs  fs.FS

	mu      sync.Mutex
	files   map[string]*httpFile
	faults  []*Fault
	log     []HTTPRequest
	gen     int // counts Resets
	etag    ETagStyle
	latency time.Duration
	rate    int64 // body bytes per second of one answer; 0 is no cap

	requests atomic.Int64
	bytes    atomic.Int64
	active   atomic.Int64 // requests being answered
	peak     atomic.Int64 // the most answered at once since the last Reset
}

type httpFile struct {
	data []byte
	etag string // quoted, strong
	mod  time.Time
}

// ETagStyle says which validators the server sends.
type ETagStyle int

// The validator styles of SetETagStyle.
const (
	StrongETag     ETagStyle = iota // a strong ETag and Last-Modified (the default)
	WeakETag                        // a weak ETag (W/"...") and Last-Modified
	NoETag                          // Last-Modified only
	NoValidator                     // neither ETag nor Last-Modified
	StrongETagOnly                  // a strong ETag and no Last-Modified
)

// HTTPRequest is one logged request.
type HTTPRequest struct {
	Method string
	Path   string
	Query  string
	Range  string // the Range header, "" when none
	Cond   string // If-Match or If-Unmodified-Since, "" when none
	Status int    // 0 while the answer is being sent
	Bytes  int64  // body bytes sent
	Fault  string // the fault injected, "" when none
}

// String returns the method and the path with its query, as a log line
// shows the request.
func (r HTTPRequest) String() string {
	s := fmt.Sprintf("%s %s", r.Method, r.Path)
	if r.Query != "" {
		s += "?" + r.Query
	}
	if r.Range != "" {
		s += " Range:" + r.Range
	}
	if r.Cond != "" {
		s += " If:" + r.Cond
	}
	if r.Status == 0 {
		s += " -> (answering)"
	} else {
		s += fmt.Sprintf(" -> %d, %d bytes", r.Status, r.Bytes)
	}
	if r.Fault != "" {
		s += " [" + r.Fault + "]"
	}
	return s
}

// FaultKind is what a Fault does to a request.
type FaultKind int

// The faults an HTTPServer injects.
const (
	// FaultStatus answers Status (default 503) with no body, and the
	// Retry-After header RetryAfter when set.
	FaultStatus FaultKind = iota + 1
	// FaultShortBody sends the headers of the full answer and only Cut
	// bytes of its body, then closes the connection.
	FaultShortBody
	// FaultReset closes the connection (with a TCP reset) before
	// answering.
	FaultReset
	// FaultDelay waits Delay before answering normally (or until the
	// client gives up).
	FaultDelay
	// FaultIgnoreRange answers 200 with the whole body, as a server
	// that does not support Range.
	FaultIgnoreRange
	// FaultNoLength answers without Content-Length (chunked).
	FaultNoLength
	// FaultGzip ignores Range and sends the whole body gzipped with
	// Content-Encoding: gzip and no Content-Length, whatever the client
	// accepts.
	FaultGzip
	// FaultChange replaces the file with Data (a new ETag) before
	// answering.
	FaultChange
)

var faultNames = map[FaultKind]string{
	FaultStatus: "status", FaultShortBody: "short body", FaultReset: "reset", FaultDelay: "delay",
	FaultIgnoreRange: "ignore range", FaultNoLength: "no length", FaultGzip: "gzip", FaultChange: "change",
}

// String returns the fault's name, such as "short body".
func (k FaultKind) String() string {
	if s, ok := faultNames[k]; ok {
		return s
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// A Fault is injected into the requests that match it, Times times (0
// means once, a negative count forever), after the first Skip of them.
// Faults are matched in the order they were injected; several may apply
// to one request (a change, then a short body).
type Fault struct {
	Kind       FaultKind
	Path       string        // only requests for this fs name; "" matches every one
	Times      int           // requests to affect: 0 once, < 0 forever
	Skip       int           // requests that match and are let through first
	Status     int           // FaultStatus: the status, default 503
	RetryAfter string        // FaultStatus: the Retry-After header, if any
	Cut        int64         // FaultShortBody: body bytes sent before closing
	Delay      time.Duration // FaultDelay
	Data       []byte        // FaultChange: the new content
	OnlyRange  bool          // only requests with a Range header
}

// NewHTTPServer starts a server for files (copied; names are fs names)
// and stops it when t's cleanup runs.
func NewHTTPServer(t testing.TB, files map[string][]byte) *HTTPServer {
	return NewHTTPServerFS(t, files, nil)
}

// NewHTTPServerFS is NewHTTPServer with a fallback: names that files lacks
// are read from fsys (which may be nil), such as os.DirFS(dir).
func NewHTTPServerFS(t testing.TB, files map[string][]byte, fsys fs.FS) *HTTPServer {
	t.Helper()
	s := &HTTPServer{fs: fsys, files: map[string]*httpFile{}}
	for name, data := range files {
		s.Set(name, data)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL returns the server's base URL, "http://127.0.0.1:PORT", without a
// trailing slash.
func (s *HTTPServer) URL() string { return s.srv.URL }

// Client returns an *http.Client for the server.
func (s *HTTPServer) Client() *http.Client { return s.srv.Client() }

// Set stores data (copied) under name, replacing what was there: the file
// gets a new ETag and modification time.
func (s *HTTPServer) Set(name string, data []byte) {
	data = bytes.Clone(data)
	sum := sha256.Sum256(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	mod := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if old := s.files[name]; old != nil {
		// A later second, so that If-Unmodified-Since notices.
		mod = old.mod.Add(time.Second)
	}
	s.files[name] = &httpFile{data: data, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, mod: mod}
}

// SetETagStyle chooses the validators sent from now on.
func (s *HTTPServer) SetETagStyle(e ETagStyle) {
	s.mu.Lock()
	s.etag = e
	s.mu.Unlock()
}

// SetLatency adds d before every answer, as a distant server would.
func (s *HTTPServer) SetLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}

// SetRate caps the body of every answer at rate bytes per second, each
// answer on its own, as an object store caps one response whatever the
// others do; 0 (the default) sends as fast as the connection takes. The
// cap starts after the latency (SetLatency): an answer of n bytes takes
// about latency + n/rate.
func (s *HTTPServer) SetRate(rate int64) {
	s.mu.Lock()
	s.rate = max(rate, 0)
	s.mu.Unlock()
}

// Inject adds a fault.
func (s *HTTPServer) Inject(f Fault) {
	s.mu.Lock()
	fc := f
	s.faults = append(s.faults, &fc)
	s.mu.Unlock()
}

// ClearFaults removes every pending fault.
func (s *HTTPServer) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// Requests returns the number of requests served since the last Reset.
func (s *HTTPServer) Requests() int64 { return s.requests.Load() }

// Bytes returns the body bytes sent since the last Reset.
func (s *HTTPServer) Bytes() int64 { return s.bytes.Load() }

// Peak returns the most requests answered at once since the last Reset:
// how many a client kept in flight.
func (s *HTTPServer) Peak() int64 { return s.peak.Load() }

// Reset zeroes the counters and empties the log; the peak starts again
// from the requests being answered.
func (s *HTTPServer) Reset() {
	s.mu.Lock()
	s.requests.Store(0)
	s.bytes.Store(0)
	s.peak.Store(s.active.Load())
	s.log = nil
	s.gen++
	s.mu.Unlock()
}

// Log returns the requests served since the last Reset, in the order they
// were answered.
func (s *HTTPServer) Log() []HTTPRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]HTTPRequest(nil), s.log...)
}

// LogString formats the log one request a line, for failure messages.
func (s *HTTPServer) LogString() string {
	var b strings.Builder
	for i, r := range s.Log() {
		fmt.Fprintf(&b, "\t%d: %v\n", i+1, r)
	}
	return b.String()
}

// take returns the faults that apply to r, consuming them.
func (s *HTTPServer) take(name string, r *http.Request) []Fault {
	var out []Fault
	kept := s.faults[:0]
	for _, f := range s.faults {
		if (f.Path == "" || f.Path == name) && (!f.OnlyRange || r.Header.Get("Range") != "") {
			if f.Skip > 0 {
				f.Skip--
				kept = append(kept, f)
				continue
			}
			out = append(out, *f)
			if f.Times == 0 || f.Times == 1 {
				continue
			}
			if f.Times > 1 {
				f.Times--
			}
		}
		kept = append(kept, f)
	}
	s.faults = kept
	return out
}

func (s *HTTPServer) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	for n := s.active.Add(1); ; {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	defer s.active.Add(-1)
	name := strings.TrimPrefix(r.URL.Path, "/")
	rec := HTTPRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Range: r.Header.Get("Range"),
		Cond: r.Header.Get("If-Match") + r.Header.Get("If-Unmodified-Since")}
	cw := &countingWriter{ResponseWriter: w, s: s}

	s.mu.Lock()
	faults := s.take(name, r)
	latency, style := s.latency, s.etag
	if s.rate > 0 {
		cw.pace = &pacer{ctx: r.Context(), rate: s.rate}
	}
	var names []string
	for _, f := range faults {
		names = append(names, f.Kind.String())
	}
	rec.Fault = strings.Join(names, ", ")
	// The entry is logged when the request arrives, so that a Reset
	// between requests splits the log where it splits the counters.
	idx, gen := len(s.log), s.gen
	s.log = append(s.log, rec)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.gen == gen && idx < len(s.log) {
			s.log[idx].Status, s.log[idx].Bytes = cw.status, cw.n
			if s.log[idx].Status == 0 {
				s.log[idx].Status = http.StatusOK
			}
		}
		s.mu.Unlock()
	}()
	if latency > 0 && !sleepCtx(r, latency) {
		return
	}

	var short int64 = -1
	ignoreRange, noLength, gz := false, false, false
	for _, f := range faults {
		switch f.Kind {
		case FaultStatus:
			st := f.Status
			if st == 0 {
				st = http.StatusServiceUnavailable
			}
			if f.RetryAfter != "" {
				w.Header().Set("Retry-After", f.RetryAfter)
			}
			cw.WriteHeader(st)
			return
		case FaultReset:
			reset(w)
			return
		case FaultDelay:
			if !sleepCtx(r, f.Delay) {
				return
			}
		case FaultChange:
			s.Set(name, f.Data)
		case FaultShortBody:
			short = f.Cut
		case FaultIgnoreRange:
			ignoreRange = true
		case FaultNoLength:
			noLength = true
		case FaultGzip:
			gz = true
		}
	}

	f := s.file(name)
	if f == nil || r.Method != http.MethodGet && r.Method != http.MethodHead {
		cw.WriteHeader(http.StatusNotFound)
		return
	}
	h := w.Header()
	switch style {
	case StrongETag, StrongETagOnly:
		h.Set("ETag", f.etag)
	case WeakETag:
		h.Set("ETag", "W/"+f.etag)
	}
	mod := f.mod
	if style == NoValidator || style == StrongETagOnly {
		mod = time.Time{}
	}
	if ignoreRange || gz {
		r.Header.Del("Range")
	}
	if gz {
		// net/http's conditional checks first, then the encoded body.
		if !checkPreconditions(w, r, f, style) {
			cw.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		h.Set("Content-Encoding", "gzip")
		if !mod.IsZero() {
			h.Set("Last-Modified", mod.Format(http.TimeFormat))
		}
		cw.WriteHeader(http.StatusOK)
		zw := gzip.NewWriter(cw)
		zw.Write(f.data)
		zw.Close()
		return
	}
	var out http.ResponseWriter = cw
	if short >= 0 {
		out = &cutWriter{countingWriter: cw, left: short}
	}
	if noLength {
		out = &noLengthWriter{out}
	}
	http.ServeContent(out, r, "", mod, bytes.NewReader(f.data))
	if c, ok := out.(*cutWriter); ok && c.cut {
		// Abort: the server closes the connection after the bytes sent.
		panic(http.ErrAbortHandler)
	}
	if n, ok := out.(*noLengthWriter); ok {
		if c, ok := n.ResponseWriter.(*cutWriter); ok && c.cut {
			panic(http.ErrAbortHandler)
		}
	}
}

// checkPreconditions evaluates If-Match and If-Unmodified-Since for the
// gzip fault, which does not go through http.ServeContent.
func checkPreconditions(w http.ResponseWriter, r *http.Request, f *httpFile, style ETagStyle) bool {
	if im := r.Header.Get("If-Match"); im != "" {
		return (style == StrongETag || style == StrongETagOnly) && (im == "*" || strings.Contains(im, f.etag))
	}
	if ius := r.Header.Get("If-Unmodified-Since"); ius != "" && style != NoValidator && style != StrongETagOnly {
		t, err := http.ParseTime(ius)
		return err != nil || !f.mod.Truncate(time.Second).After(t)
	}
	return true
}

func (s *HTTPServer) file(name string) *httpFile {
	s.mu.Lock()
	f := s.files[name]
	s.mu.Unlock()
	if f != nil || s.fs == nil || !fs.ValidPath(name) {
		return f
	}
	data, err := fs.ReadFile(s.fs, name)
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(data)
	return &httpFile{data: data, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, mod: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// sleepCtx waits d, or until the client goes away; it reports whether the
// wait ran to its end.
func sleepCtx(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// reset closes the connection of w with a TCP reset.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// countingWriter counts the body bytes sent and remembers the status;
// with a pacer, it sends them at its rate.
type countingWriter struct {
	http.ResponseWriter
	s      *HTTPServer
	n      int64
	status int
	pace   *pacer
}

// A pacer holds the body of one answer to rate bytes per second, from its
// first byte.
type pacer struct {
	ctx   context.Context
	rate  int64
	start time.Time
	sent  int64
}

// paceChunk is the most a paced answer writes at once: small enough that
// the rate holds over a few milliseconds.
const paceChunk = 16 << 10

// wait returns when n more bytes may be sent, or the client's error when
// it went away first: once the bytes sent so far took their time at the
// rate, so the first chunk (and the headers with it) goes at once.
func (p *pacer) wait(n int) error {
	if p.start.IsZero() {
		p.start = time.Now()
	}
	due := p.start.Add(time.Duration(float64(p.sent) / float64(p.rate) * float64(time.Second)))
	p.sent += int64(n)
	d := time.Until(due)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
}

func (c *countingWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.pace == nil {
		return c.write(p)
	}
	var n int
	for len(p) > 0 {
		k := min(len(p), paceChunk)
		if err := c.pace.wait(k); err != nil {
			return n, err
		}
		m, err := c.write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

func (c *countingWriter) write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	// Counted before the write: the client may have the bytes before
	// Write returns.
	c.s.bytes.Add(int64(len(p)))
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	c.s.bytes.Add(int64(n - len(p)))
	return n, err
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// cutWriter lets left body bytes through, then fails.
type cutWriter struct {
	*countingWriter
	left int64
	cut  bool
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= c.left {
		c.left -= int64(len(p))
		return c.countingWriter.Write(p)
	}
	n, _ := c.countingWriter.Write(p[:c.left])
	c.left = 0
	c.cut = true
	http.NewResponseController(c.countingWriter.ResponseWriter).Flush()
	return n, io.ErrShortWrite
}

// noLengthWriter drops Content-Length, so the body is sent chunked.
type noLengthWriter struct {
	http.ResponseWriter
}

func (w *noLengthWriter) WriteHeader(code int) {
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(code)
}

func (w *noLengthWriter) Write(p []byte) (int, error) { return w.ResponseWriter.Write(p) }

func (w *noLengthWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
