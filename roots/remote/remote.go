// Package remote is what the remote roots (http, https, s3, s3+http,
// s3+https, gs) share: a vfs.Tree over a small per-service Backend, with
// opening in one request, reads through the block cache, conditional reads
// pinned to the version seen at open, and retries.
//
// # Request economy
//
// Opening an object is one request and no HEAD: a suffix read of
// Options.SuffixSize bytes whose answer gives the size and the version
// (ETag or generation). Those bytes are pinned to the object's blob, so a
// zip's end records, and often its whole central directory, cost nothing
// more; the suffix size adapts upwards per tree to what archives needed.
// Later reads go through the cache package, which fetches aligned blocks,
// coalesces adjacent ones and reads ahead on sequential reads.
//
// # Consistency
//
// Every read after open is conditional on the version seen at open. When
// the object changed, the read fails with an error matching vfs.ErrModified;
// bytes of two versions are never mixed, and cache keys carry the version.
//
// # Faults
//
// Errors marked retryable by the backend (5xx, 429, timeouts, resets,
// short bodies) are retried with jittered exponential backoff, honouring a
// Retry-After the backend passes on, up to Options.Retry.MaxAttempts. A
// short body is resumed from where it stopped, never returned as data. A
// server that ignores Range is handled by streaming from the start to the
// needed part.
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"path"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/vfs"
)

// A Backend reads the objects of one remote location (a bucket, a base URL).
// Names are fs.ValidPath names relative to the location; "." is the
// location itself.
type Backend interface {
	// Get reads object name. With off >= 0 it asks for the n bytes at off;
	// with off < 0 it asks for the last -off bytes (a suffix). A server
	// may answer with more than asked (the whole object): Response.Start
	// says where the body starts. When version is not empty, the read
	// must be conditional on it (If-Match, S3 IfMatch, GCS generation) and
	// fail with an error matching vfs.ErrModified when the object has
	// changed. Errors match fs.ErrNotExist (404) and fs.ErrPermission
	// (403); transient failures are wrapped with Retryable.
	Get(ctx context.Context, name string, off, n int64, version string) (*Response, error)
	// List returns the entries of directory dir, sorted by name, or an
	// error matching errors.ErrUnsupported when the service cannot list.
	// A directory that does not exist is fs.ErrNotExist.
	List(ctx context.Context, dir string) ([]fs.DirEntry, error)
	// Key returns the canonical URL of name, used in cache keys and
	// messages.
	Key(name string) string
}

// Response is the answer to Backend.Get.
type Response struct {
	Body    io.ReadCloser // the bytes from Start on; the caller closes it
	Start   int64         // offset in the object of the first byte of Body
	Length  int64         // bytes in Body, -1 when unknown
	Size    int64         // size of the whole object, -1 when unknown
	Version string        // ETag or generation, "" when the service gives none
	ModTime time.Time     // last modification, zero when unknown
}

// Retry bounds retries. Zero fields mean the defaults.
type Retry struct {
	MaxAttempts int           // attempts in all, default 5; 1 means no retry
	BaseDelay   time.Duration // first backoff, default 100ms
	MaxDelay    time.Duration // backoff cap, default 5s
}

// Options configure a Tree. Zero fields mean the defaults.
type Options struct {
	Retry Retry
	// Cache holds the blocks read; nil means cache.Default.
	Cache *cache.Cache
	// SuffixSize is the size of the first read of an object. Default
	// 64 KiB; it grows per tree, up to 8 MiB, when an archive's
	// directory needed more.
	SuffixSize int64
}

// RetryableError marks a transient failure.
type RetryableError struct {
	Err   error
	After time.Duration // the server's Retry-After, 0 when none
}

func (e *RetryableError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *RetryableError) Unwrap() error { return e.Err }

// Retryable marks err as transient; after is the server's Retry-After.
func Retryable(err error, after time.Duration) error {
	return &RetryableError{Err: err, After: after}
}

// IsRetryable reports whether err is worth another attempt: marked by a
// backend, a network timeout, a reset or refused connection, or a body cut
// short.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var re *RetryableError
	if errors.As(err, &re) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Do runs f until it succeeds, fails for good, or the attempts run out,
// sleeping with jittered exponential backoff between attempts.
func (r Retry) Do(ctx context.Context, f func() error) error {
	r = r.withDefaults()
	delay := r.BaseDelay
	var err error
	for attempt := 1; ; attempt++ {
		if err = f(); err == nil || !IsRetryable(err) || attempt >= r.MaxAttempts {
			return err
		}
		wait := delay/2 + rand.N(delay/2+1) // jitter in [delay/2, delay]
		var re *RetryableError
		if errors.As(err, &re) && re.After > 0 {
			wait = min(re.After, r.MaxDelay)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, r.MaxDelay)
	}
}

func (r Retry) withDefaults() Retry {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 5
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = 100 * time.Millisecond
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = 5 * time.Second
	}
	return r
}

const (
	defaultSuffix = 64 << 10
	maxSuffix     = 8 << 20
)

// Tree is a vfs.Tree over a Backend. It is safe for concurrent use.
type Tree struct {
	b     Backend
	o     Options
	c     *cache.Cache
	stats cache.Stats

	suffix atomic.Int64 // current size of the first read

	mu    sync.Mutex
	heads map[string]*head // objects opened, by name
}

// head is what opening an object learned.
type head struct {
	size    int64
	version string
	mod     time.Time
	tailOff int64
	tail    []byte
}

// NewTree returns the tree of b.
func NewTree(b Backend, o Options) *Tree {
	t := &Tree{b: b, o: o, c: o.Cache, heads: map[string]*head{}}
	if t.c == nil {
		t.c = cache.Default
	}
	s := o.SuffixSize
	if s <= 0 {
		s = defaultSuffix
	}
	t.suffix.Store(s)
	return t
}

var _ vfs.Tree = (*Tree)(nil)

// Backend returns the tree's backend.
func (t *Tree) Backend() Backend { return t.b }

// Stats returns the counts of requests, bytes, hits and misses of every
// object of the tree.
func (t *Tree) Stats() cache.Counts {
	c := t.stats.Snapshot()
	return c
}

// Grow raises the suffix size of later opens to at least n bytes (capped
// at 8 MiB). Archive readers call it when an end-of-archive structure
// needed more than the first read, so that the next archive opened from the
// same tree needs one request.
func (t *Tree) Grow(n int64) {
	n = min(n, maxSuffix)
	for {
		cur := t.suffix.Load()
		if n <= cur || t.suffix.CompareAndSwap(cur, n) {
			return
		}
	}
}

// open reads the suffix of name, learning its size and version.
func (t *Tree) open(ctx context.Context, name string) (*head, error) {
	t.mu.Lock()
	h := t.heads[name]
	t.mu.Unlock()
	if h != nil {
		return h, nil
	}
	want := t.suffix.Load()
	err := t.o.Retry.Do(ctx, func() error {
		t.stats.AddRequest()
		resp, err := t.b.Get(ctx, name, -want, 0, "")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.Size < 0 {
			return fmt.Errorf("%s: the server gave no size", t.b.Key(name))
		}
		// The body is the suffix, or the whole object when the server
		// ignored the range: keep the last want bytes of it.
		keepFrom := max(resp.Start, resp.Size-want)
		if _, err := io.CopyN(io.Discard, resp.Body, keepFrom-resp.Start); err != nil {
			return Retryable(fmt.Errorf("reading %s: %w", t.b.Key(name), err), 0)
		}
		tail := make([]byte, resp.Size-keepFrom)
		if _, err := io.ReadFull(resp.Body, tail); err != nil {
			return Retryable(fmt.Errorf("reading %s: short body: %w", t.b.Key(name), io.ErrUnexpectedEOF), 0)
		}
		t.stats.AddBytes(int64(len(tail)) + keepFrom - resp.Start)
		h = &head{size: resp.Size, version: resp.Version, mod: resp.ModTime, tailOff: keepFrom, tail: tail}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if len(t.heads) >= 4096 {
		clear(t.heads) // a bound; heads are cheap to learn again
	}
	t.heads[name] = h
	t.mu.Unlock()
	return h, nil
}

// Stat describes name. A name that is not an object but has entries under
// it is a directory (when the backend can list).
func (t *Tree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name == "." {
		return &vfs.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555}, nil
	}
	h, err := t.open(ctx, name)
	if err == nil {
		return &vfs.FileInfo{FName: path.Base(name), FSize: h.size, FMode: 0o444, FModTime: h.mod, FSys: h.version}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if ents, lerr := t.b.List(ctx, name); lerr == nil && len(ents) > 0 {
		return &vfs.FileInfo{FName: path.Base(name), FMode: fs.ModeDir | 0o555}, nil
	}
	return nil, err
}

// ReadDir lists the directory name.
func (t *Tree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	d := name
	if d == "." {
		d = ""
	}
	return t.b.List(ctx, d)
}

// OpenBlob opens the object name: one request the first time, none after.
func (t *Tree) OpenBlob(ctx context.Context, name string) (vfs.Blob, error) {
	if name == "." {
		return nil, vfs.ErrIsDir
	}
	h, err := t.open(ctx, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if ents, lerr := t.b.List(ctx, name); lerr == nil && len(ents) > 0 {
				return nil, vfs.ErrIsDir
			}
		}
		return nil, err
	}
	info := &vfs.FileInfo{FName: path.Base(name), FSize: h.size, FMode: 0o444, FModTime: h.mod, FSys: h.version}
	key := t.b.Key(name) + "\x00" + h.version
	src := &source{t: t, name: name, version: h.version, size: h.size}
	blob := t.c.Blob(src, key, info, &t.stats)
	blob.Pin(h.tailOff, h.tail)
	return &Blob{Blob: blob, t: t}, nil
}

// Blob is an open remote object. Besides vfs.Blob it lets archive readers
// grow the tree's first read.
type Blob struct {
	*cache.Blob
	t *Tree
}

// GrowSuffix raises the tree's first-read size to n bytes: see Tree.Grow.
func (b *Blob) GrowSuffix(n int64) { b.t.Grow(n) }

// source reads one version of one object through the backend.
type source struct {
	t       *Tree
	name    string
	version string
	size    int64
}

// ReadRange returns the n bytes at off, resuming a body that is cut short.
func (s *source) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	r := &resumer{ctx: ctx, s: s, off: off, end: off + n}
	if err := r.reopen(true); err != nil {
		return nil, err
	}
	return r, nil
}

// resumer reads [off, end) of an object and, when a body breaks, asks for
// the rest with a new conditional request.
type resumer struct {
	ctx      context.Context
	s        *source
	off, end int64
	body     io.ReadCloser
	attempts int
}

// reopen asks for the rest of the range. The cache counts the first
// request of a range; the tree counts the others.
func (r *resumer) reopen(first bool) error {
	if r.body != nil {
		r.body.Close()
		r.body = nil
	}
	t := r.s.t
	return t.o.Retry.Do(r.ctx, func() error {
		if !first {
			t.stats.AddRequest()
		}
		first = false
		resp, err := t.b.Get(r.ctx, r.s.name, r.off, r.end-r.off, r.s.version)
		if err != nil {
			return err
		}
		if resp.Size >= 0 && resp.Size != r.s.size {
			resp.Body.Close()
			return fmt.Errorf("%s: size changed from %d to %d: %w", t.b.Key(r.s.name), r.s.size, resp.Size, vfs.ErrModified)
		}
		if r.s.version != "" && resp.Version != "" && resp.Version != r.s.version {
			resp.Body.Close()
			return fmt.Errorf("%s: version changed from %s to %s: %w", t.b.Key(r.s.name), r.s.version, resp.Version, vfs.ErrModified)
		}
		if resp.Start > r.off {
			resp.Body.Close()
			return fmt.Errorf("%s: asked for bytes from %d, got from %d", t.b.Key(r.s.name), r.off, resp.Start)
		}
		if skip := r.off - resp.Start; skip > 0 {
			// The server ignored the range: stream up to what is needed.
			m, err := io.CopyN(io.Discard, resp.Body, skip)
			t.stats.AddBytes(m)
			if err != nil {
				resp.Body.Close()
				return Retryable(fmt.Errorf("reading %s: %w", t.b.Key(r.s.name), err), 0)
			}
		}
		r.body = resp.Body
		return nil
	})
}

func (r *resumer) Read(p []byte) (int, error) {
	if r.off >= r.end {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.end-r.off)]
	for {
		n, err := r.body.Read(p)
		r.off += int64(n)
		if n > 0 || err == nil {
			if r.off >= r.end {
				return n, io.EOF
			}
			return n, nil
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // the body ended before the range did
		}
		r.attempts++
		if !IsRetryable(err) || r.attempts >= r.s.t.o.Retry.withDefaults().MaxAttempts {
			return 0, fmt.Errorf("reading %s at %d: %w", r.s.t.b.Key(r.s.name), r.off, err)
		}
		if err := r.reopen(false); err != nil {
			return 0, err
		}
	}
}

func (r *resumer) Close() error {
	if r.body != nil {
		return r.body.Close()
	}
	return nil
}
