package httproot

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterRoot(&vfs.Root{Scheme: "http", Also: []string{"https"}, Open: open, Options: (*Options)(nil), Durable: true})
}

// Options configure the http and https roots. Pass them in
// vfs.Options.Schemes under "http": one value serves both.
// A nil *Options means the defaults.
type Options struct {
	// Client makes the requests. Nil means a client of its own over
	// http.DefaultTransport's settings, but keeping as many idle
	// connections to one host as to all (100).
	Client *http.Client
	// Remote sets retries, the block cache and the size of the first
	// read (see remote.Options).
	Remote remote.Options
	// Timeout bounds how long one attempt may wait for the answer's
	// headers, and then for each read of its body to make progress. A
	// timed-out attempt is retried. Default 30 s; negative means none.
	Timeout time.Duration
}

const defaultTimeout = 30 * time.Second

// defaultClient is used when Options.Client is nil. It is never modified
// after it is made (it is a package variable for that reason only: one
// connection pool for the process). It does not follow
// the environment's proxy settings any differently from
// http.DefaultTransport, whose settings it clones, but for
// MaxIdleConnsPerHost: http.DefaultTransport keeps 2 idle connections
// to a host, so that of the 32 or 64 requests an array read or a
// parallel readahead has in flight to one store, all but 2 would close
// their connection on answering, and the next requests open new ones (a
// TCP and TLS handshake each). It keeps as many as MaxIdleConns (100).
var defaultClient = &http.Client{Transport: newTransport()}

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = t.MaxIdleConns
	return t
}

// open returns the location of an http or https sub-URL: a tree rooted at
// the URL's directory (its path up to the last "/"), and the name of the
// file in it, or "." for a directory URL.
func open(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	if err := ctx.Err(); err != nil {
		return driver.Location{}, err
	}
	if u.Host() == "" {
		return driver.Location{}, fmt.Errorf("%s: no host: %w", u, fs.ErrInvalid)
	}
	opts := vfs.SchemeOptions[*Options](env)
	b := NewBackend(u, env.Cache, opts)
	return driver.Location{Tree: remote.NewTree(b, env, b.remoteOptions()), Path: b.file}, nil
}

// Backend is the remote.Backend of one http or https directory: range GETs
// of the files beneath it, with the directory URL's query on every
// request. It cannot list. It is safe for concurrent use.
type Backend struct {
	dir     vfs.SubURL // the directory URL: path ends in "/", query kept
	file    string     // the fs name of the URL's file, "." for a directory URL
	rawFile string     // the file's path exactly as the URL wrote it
	client  *http.Client
	timeout time.Duration
	opts    remote.Options
	// nonRanging is what the vfs.Cache knows of hosts that ignore Range.
	nonRanging *nonRanging
}

var _ remote.Backend = (*Backend)(nil)

// NewBackend returns the backend of u's directory. When u names a file
// (its path does not end in "/"), that file is the name File returns,
// and requests for it use u's path exactly as written. c is the cache whose
// record of hosts that ignore Range the backend reads and adds to (nil
// means vfs.DefaultCache()). opts may be nil.
func NewBackend(u vfs.SubURL, c *vfs.Cache, opts *Options) *Backend {
	if opts == nil {
		opts = &Options{}
	}
	b := &Backend{client: opts.Client, timeout: opts.Timeout, opts: opts.Remote, file: ".", nonRanging: nonRangingFor(c)}
	if b.client == nil {
		b.client = defaultClient
	}
	if b.timeout == 0 {
		b.timeout = defaultTimeout
	}
	b.dir = u
	if !u.IsDir() {
		i := strings.LastIndexByte(u.Path, '/')
		b.dir.Path = u.Path[:i+1]
		b.rawFile = u.Path
		b.file = vfs.SubURL{Scheme: u.Scheme, Path: u.Path[i+1:]}.Key()
	} else if b.dir.Path == "" {
		b.dir.Path = "/"
	}
	return b
}

func (b *Backend) remoteOptions() remote.Options { return b.opts }

// File returns the fs name of the file the URL named in its directory, or
// "." when the URL named a directory.
func (b *Backend) File() string { return b.file }

// rawPath returns the escaped request path of name.
func (b *Backend) rawPath(name string) string {
	if name == b.file && b.rawFile != "" {
		return b.rawFile
	}
	return b.dir.Join(name).Path
}

// Key returns the URL of name, with the directory's query.
func (b *Backend) Key(name string) string {
	u := b.dir
	u.Path = b.rawPath(name)
	return u.String()
}

// List reports that HTTP cannot list: the error matches
// errors.ErrUnsupported.
func (b *Backend) List(ctx context.Context, dir string) ([]fs.DirEntry, error) {
	return nil, fmt.Errorf("%s: http servers cannot be listed (open a file by name): %w", b.Key(dir), errors.ErrUnsupported)
}

// nonRanging remembers the hosts (scheme://host:port) seen to ignore
// Range: a resource of a vfs.Cache.
type nonRanging struct{ m sync.Map }

// nonRangingKey keys the nonRanging among the resources of a vfs.Cache.
type nonRangingKey struct{}

// nonRangingFor returns the nonRanging of c (nil means vfs.DefaultCache()).
func nonRangingFor(c *vfs.Cache) *nonRanging {
	if c == nil {
		c = vfs.DefaultCache()
	}
	return c.Resource(nonRangingKey{}, func() any { return new(nonRanging) }).(*nonRanging)
}

// Ranging reports whether the host of the http or https URL u (as
// "scheme://host[:port]") has not been seen to ignore Range requests by
// the pipelines opened with c (nil means vfs.DefaultCache()).
func Ranging(c *vfs.Cache, hostURL string) bool {
	_, bad := nonRangingFor(c).m.Load(hostURL)
	return !bad
}

func (b *Backend) hostKey() string { return b.dir.Scheme + "://" + b.dir.Authority }

// Get reads name (see remote.Backend). It sends "Range: bytes=off-end" (or
// "bytes=-n" for a suffix), "Accept-Encoding: identity", and the
// precondition that version encodes (see the package documentation).
func (b *Backend) Get(ctx context.Context, name string, off, n int64, version string) (*remote.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := b.Key(name)
	actx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(actx, http.MethodGet, key, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %w", key, fs.ErrInvalid)
	}
	req.Header.Set("Accept-Encoding", "identity")
	switch {
	case off < 0:
		req.Header.Set("Range", fmt.Sprintf("bytes=%d", off)) // "bytes=-n"
	case n > 0:
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	}
	etag, lastMod := splitVersion(version)
	if etag != "" && !strings.HasPrefix(etag, "W/") {
		req.Header.Set("If-Match", etag)
	} else if lastMod != "" {
		req.Header.Set("If-Unmodified-Since", lastMod)
	}

	w := newWatchdog(b.timeout, cancel)
	resp, err := b.client.Do(req)
	if err != nil {
		timedOut := w.stop()
		cancel()
		return nil, transportErr(ctx, key, err, timedOut)
	}
	w.pause()
	r, err := b.answer(key, req, resp, off)
	if err != nil {
		drain(resp.Body)
		w.stop()
		cancel()
		return nil, err
	}
	r.Body = &watchedBody{rc: r.Body, w: w, cancel: cancel, ctx: ctx, key: key}
	return r, nil
}

// answer turns resp into a Response or an error.
func (b *Backend) answer(key string, req *http.Request, resp *http.Response, off int64) (*remote.Response, error) {
	h := resp.Header
	r := &remote.Response{Body: resp.Body, Size: -1, Length: -1, Version: versionOf(h)}
	if t, err := http.ParseTime(h.Get("Last-Modified")); err == nil {
		r.ModTime = t
	}
	status := resp.StatusCode
	switch {
	case status == http.StatusOK:
		if req.Header.Get("Range") != "" {
			b.nonRanging.m.Store(b.hostKey(), true)
		}
		r.Length = resp.ContentLength
		r.Size = resp.ContentLength
	case status == http.StatusPartialContent:
		if cr := h.Get("Content-Range"); strings.HasSuffix(cr, "/0") {
			// An empty object: net/http answers a suffix range of it
			// with "bytes 0--1/0".
			drain(resp.Body)
			r.Body, r.Size, r.Length = http.NoBody, 0, 0
			return r, nil
		}
		start, end, size, ok := remote.ParseContentRange(h.Get("Content-Range"))
		if !ok {
			return nil, fmt.Errorf("%s: 206 with a bad Content-Range %q", key, h.Get("Content-Range"))
		}
		r.Start, r.Length, r.Size = start, end-start, size
	case status == http.StatusRequestedRangeNotSatisfiable:
		// A suffix of an empty object; anything else is a range past
		// the end, which only a changed object gives us.
		if size, ok := unsatisfiedSize(h.Get("Content-Range")); ok && size == 0 {
			drain(resp.Body)
			r.Body, r.Size, r.Length = http.NoBody, 0, 0
			return r, nil
		}
		if off >= 0 {
			return nil, fmt.Errorf("%s: range not satisfiable (the object shrank?): %w", key, driver.ErrModified)
		}
		return nil, fmt.Errorf("%s: %s", key, resp.Status)
	case status == http.StatusNotFound || status == http.StatusGone:
		return nil, fmt.Errorf("%s: %s: %w", key, resp.Status, fs.ErrNotExist)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return nil, fmt.Errorf("%s: %s: %w", key, resp.Status, fs.ErrPermission)
	case status == http.StatusPreconditionFailed:
		return nil, fmt.Errorf("%s: %s: %w", key, resp.Status, driver.ErrModified)
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		return nil, remote.Retryable(fmt.Errorf("%s: %s", key, resp.Status), remote.RetryAfter(h))
	default:
		return nil, fmt.Errorf("%s: unexpected %s", key, resp.Status)
	}
	switch enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		// The server encoded the bytes despite Accept-Encoding:
		// identity. Its ranges would count encoded bytes: use the whole
		// decoded body, of unknown size, as a server that ignores Range.
		if status != http.StatusOK {
			return nil, fmt.Errorf("%s: a range of a gzip-encoded body cannot be decoded: %w", key, errors.ErrUnsupported)
		}
		b.nonRanging.m.Store(b.hostKey(), true)
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, remote.Retryable(fmt.Errorf("%s: gzip-encoded body: %w", key, err), 0)
		}
		r.Body = &gzipBody{zr: zr, rc: resp.Body}
		r.Start, r.Length, r.Size = 0, -1, -1
	default:
		return nil, fmt.Errorf("%s: Content-Encoding %q: %w", key, enc, errors.ErrUnsupported)
	}
	return r, nil
}

// versionOf encodes the validators of an answer: the ETag, then, after a
// NUL, Last-Modified. A strong ETag alone decides; a weak or missing one is
// sent as If-Unmodified-Since and compared as it is.
func versionOf(h http.Header) string {
	etag, lm := h.Get("ETag"), h.Get("Last-Modified")
	if etag != "" && !strings.HasPrefix(etag, "W/") {
		return etag
	}
	if etag == "" && lm == "" {
		return ""
	}
	return etag + "\x00" + lm
}

// ShowVersion returns the version that versionOf encoded as people know
// it: the ETag, or the Last-Modified date when the server sent no ETag.
// It is what the FileInfo of a file reports as its Sys value; the encoded
// version stays in cache keys and fingerprints.
func (b *Backend) ShowVersion(version string) string {
	etag, lastMod := splitVersion(version)
	if etag != "" {
		return etag
	}
	return lastMod
}

var _ remote.VersionShower = (*Backend)(nil)

func splitVersion(v string) (etag, lastMod string) {
	etag, lastMod, _ = strings.Cut(v, "\x00")
	return etag, lastMod
}

// unsatisfiedSize parses the "bytes */size" of a 416 answer.
func unsatisfiedSize(s string) (int64, bool) {
	t, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes */")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return n, err == nil && n >= 0
}

// transportErr classifies an error of http.Client.Do.
func transportErr(ctx context.Context, key string, err error, timedOut bool) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if timedOut {
		return remote.Retryable(fmt.Errorf("%s: no answer within the timeout", key), 0)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return remote.Retryable(fmt.Errorf("%s: %w", key, err), 0)
	}
	return fmt.Errorf("%s: %w", key, err)
}

// drain reads a little of an unwanted body, so that the connection can be
// reused, and closes it.
func drain(rc io.ReadCloser) {
	io.CopyN(io.Discard, rc, 4<<10)
	rc.Close()
}

// A watchdog cancels an attempt that makes no progress for its timeout.
type watchdog struct {
	t     *time.Timer
	d     time.Duration
	fired atomic.Bool
}

func newWatchdog(d time.Duration, cancel context.CancelFunc) *watchdog {
	w := &watchdog{d: d}
	if d > 0 {
		w.t = time.AfterFunc(d, func() { w.fired.Store(true); cancel() })
	}
	return w
}

// kick restarts the countdown.
func (w *watchdog) kick() {
	if w.t != nil {
		w.t.Reset(w.d)
	}
}

// pause stops the countdown until the next kick.
func (w *watchdog) pause() {
	if w.t != nil {
		w.t.Stop()
	}
}

// stop stops the watchdog and reports whether it had fired.
func (w *watchdog) stop() bool {
	if w.t != nil {
		w.t.Stop()
	}
	return w.fired.Load()
}

// watchedBody is a body whose reads are bounded by the watchdog, and whose
// failures are classified for retries.
type watchedBody struct {
	rc     io.ReadCloser
	w      *watchdog
	cancel context.CancelFunc
	ctx    context.Context
	key    string
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.w.kick()
	n, err := b.rc.Read(p)
	b.w.pause()
	if err == nil || err == io.EOF {
		return n, err
	}
	if cerr := b.ctx.Err(); cerr != nil {
		return n, cerr
	}
	if b.w.fired.Load() {
		return n, remote.Retryable(fmt.Errorf("%s: the body stalled for the timeout", b.key), 0)
	}
	if errors.Is(err, context.Canceled) {
		return n, fmt.Errorf("%s: body closed: %w", b.key, fs.ErrClosed)
	}
	return n, remote.Retryable(fmt.Errorf("%s: %w", b.key, err), 0)
}

func (b *watchedBody) Close() error {
	b.w.stop()
	err := b.rc.Close()
	b.cancel()
	return err
}

// gzipBody decodes a gzip-encoded body.
type gzipBody struct {
	zr *gzip.Reader
	rc io.ReadCloser
}

func (g *gzipBody) Read(p []byte) (int, error) { return g.zr.Read(p) }

func (g *gzipBody) Close() error {
	g.zr.Close()
	return g.rc.Close()
}

// As lets the FS's As reach the backend: it sets target, a **Backend.
func (b *Backend) As(target any) bool {
	if t, ok := target.(**Backend); ok {
		*t = b
		return true
	}
	return false
}
