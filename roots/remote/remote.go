// Package remote is what the remote roots (http, https, s3, s3+http,
// s3+https, gs) share: a driver.Tree over a small per-service Backend, with
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
// coalesces adjacent ones and reads ahead on sequential reads. An archive
// reader that needed more than the first read calls Blob.GrowSuffix: the
// tree, and later opens of the same object in this process (a small
// process-wide table keyed by the object's URL), then read that much first.
// A server that sends the whole object at open (it ignored Range, or gave
// no size) has it read to the end; up to 64 MiB of it is put in the block
// cache, so later reads cost nothing.
//
// # Consistency
//
// Every read after open is conditional on the version seen at open. When
// the object changed, the read fails with an error matching driver.ErrModified
// (and fs.ErrNotExist too when it was deleted);
// bytes of two versions are never mixed, and cache keys carry the version.
//
// # Faults
//
// Errors marked retryable by the backend (5xx, 429, timeouts, resets,
// short bodies) are retried with jittered exponential backoff, honouring a
// Retry-After the backend passes on (capped at Retry.MaxDelay), up to
// Options.Retry.MaxAttempts. A short body is resumed from where it stopped,
// never returned as data; the requests of one range, resumed ones included,
// share the MaxAttempts bound.
//
// # Statistics
//
// Tree.Stats counts the requests, bytes, block hits and misses of every
// object of a tree; Tree.As reaches the backend. A
// server that ignores Range is handled by streaming from the start to the
// needed part.
package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"path"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/cache"
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
	// fail with an error matching driver.ErrModified when the object has
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

// Error returns the message of the failure.
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
// sleeping with jittered exponential backoff between attempts (or the
// server's Retry-After, capped at MaxDelay). It returns at once when ctx is
// done.
func (r Retry) Do(ctx context.Context, f func() error) error {
	var attempts int
	return r.do(ctx, &attempts, f)
}

// do is Do with the count of attempts made so far kept by the caller, so
// that several rounds of one operation (a body resumed after a break)
// share one bound.
func (r Retry) do(ctx context.Context, attempts *int, f func() error) error {
	r = r.withDefaults()
	delay := r.BaseDelay
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		*attempts++
		err := f()
		if err == nil || !IsRetryable(err) || *attempts >= r.MaxAttempts {
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
	// maxWhole bounds the object that a server ignoring Range sends
	// whole at open and that is kept, in the block cache, for later
	// reads.
	maxWhole = 64 << 20
	// maxHeadBytes bounds the suffixes a tree keeps for objects it
	// opened.
	maxHeadBytes = 64 << 20
)

// Tree is a driver.Tree over a Backend. It is safe for concurrent use.
type Tree struct {
	b     Backend
	o     Options
	c     *cache.Cache
	stats cache.Stats

	suffix atomic.Int64 // current size of the first read

	mu        sync.Mutex
	opening   map[string]*openCall // first reads under way, by name
	heads     map[string]*head     // objects opened, by name
	headBytes int64
	// missing holds the not-found errors of names looked up, so that
	// probing a name again (format detection, then the adapter) costs
	// no request. Like heads, it is the tree's view from its first look.
	missing map[string]error
}

// head is what opening an object learned.
type head struct {
	size    int64
	version string
	mod     time.Time
	tailOff int64
	tail    []byte // pinned to every blob of the object
	// whole holds the whole object when the server sent it all and it
	// is larger than the tail; the first blob puts it in the cache.
	whole []byte
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

var _ driver.Tree = (*Tree)(nil)

// Backend returns the tree's backend.
func (t *Tree) Backend() Backend { return t.b }

// Stats returns the counts of requests, bytes, hits and misses of every
// object of the tree: the opens, the block fetches and the resumed bodies.
func (t *Tree) Stats() cache.Counts { return t.stats.Snapshot() }

// As sets target to the tree's backend when target is a pointer to the
// backend's type or to an interface it implements, or asks the backend's
// own As method; it reports whether it did.
func (t *Tree) As(target any) bool {
	if a, ok := t.b.(interface{ As(any) bool }); ok && a.As(target) {
		return true
	}
	if p, ok := target.(*Backend); ok {
		*p = t.b
		return true
	}
	return false
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

// hints remembers, per object key, the suffix that its archive reader
// asked for, so that opening the same object again (from another tree, in
// a later pipeline) costs one request.
var hints struct {
	sync.Mutex
	m map[string]int64
}

func hint(key string) int64 {
	hints.Lock()
	defer hints.Unlock()
	return hints.m[key]
}

func setHint(key string, n int64) {
	hints.Lock()
	defer hints.Unlock()
	if hints.m == nil || len(hints.m) >= 4096 {
		hints.m = map[string]int64{} // a bound; hints are cheap to learn again
	}
	hints.m[key] = max(hints.m[key], min(n, maxSuffix))
}

// open reads the suffix of name, learning its size and version.
func (t *Tree) open(ctx context.Context, name string) (*head, error) {
	for {
		t.mu.Lock()
		h, miss := t.heads[name], t.missing[name]
		if h != nil || miss != nil {
			t.mu.Unlock()
			return h, miss
		}
		c := t.opening[name]
		if c == nil {
			// This call opens name; concurrent opens of it wait for it.
			c = &openCall{done: make(chan struct{})}
			if t.opening == nil {
				t.opening = map[string]*openCall{}
			}
			t.opening[name] = c
			t.mu.Unlock()
			c.h, c.err = t.openFirst(ctx, name)
			t.mu.Lock()
			delete(t.opening, name)
			t.mu.Unlock()
			close(c.done)
			return c.h, c.err
		}
		t.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if c.err == nil || !isContextErr(c.err) || ctx.Err() != nil {
			return c.h, c.err
		}
		// The first caller gave up, not this one: open again.
	}
}

// An openCall is one first read of an object, shared by concurrent opens.
type openCall struct {
	done chan struct{}
	h    *head
	err  error
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// openFirst reads the suffix of name: the one request that opens it.
func (t *Tree) openFirst(ctx context.Context, name string) (*head, error) {
	var h *head
	want := max(t.suffix.Load(), hint(t.b.Key(name)))
	err := t.o.Retry.Do(ctx, func() error {
		t.stats.AddRequest()
		resp, err := t.b.Get(ctx, name, -want, 0, "")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		h, err = t.readHead(name, resp, want)
		return err
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			t.mu.Lock()
			if t.missing == nil || len(t.missing) >= 4096 {
				t.missing = map[string]error{} // a bound; misses are cheap to learn again
			}
			t.missing[name] = err
			t.mu.Unlock()
		}
		return nil, err
	}
	t.mu.Lock()
	n := int64(len(h.tail) + len(h.whole))
	if t.headBytes+n > maxHeadBytes || len(t.heads) >= 4096 {
		// A bound; heads are cheap to learn again.
		clear(t.heads)
		t.headBytes = 0
	}
	t.heads[name] = h
	t.headBytes += n
	t.mu.Unlock()
	return h, nil
}

// readHead reads the answer to the first read of name: the last want
// bytes, or the whole object from a server that ignored Range (kept whole
// when it is small enough for the cache), or a body of unknown size.
func (t *Tree) readHead(name string, resp *Response, want int64) (*head, error) {
	key := t.b.Key(name)
	if resp.Size < 0 && resp.Start != 0 {
		return nil, fmt.Errorf("%s: the server gave no size", key)
	}
	if resp.Size >= 0 && resp.Start > resp.Size {
		return nil, fmt.Errorf("%s: the answer starts at %d, past the size %d", key, resp.Start, resp.Size)
	}
	// Keep at most limit bytes; past it, only the last want.
	limit := want
	if resp.Start == 0 {
		limit = max(want, min(maxWhole, t.c.Config().Budget/4))
	}
	var buf []byte
	dropped := int64(0) // bytes read and not kept
	chunk := make([]byte, 32<<10)
	for {
		m, err := resp.Body.Read(chunk)
		buf = append(buf, chunk[:m]...)
		if int64(len(buf)) > 2*limit {
			cut := int64(len(buf)) - want
			dropped += cut
			buf = append(buf[:0:0], buf[cut:]...)
		}
		if resp.Size >= 0 && resp.Start+dropped+int64(len(buf)) > resp.Size {
			return nil, fmt.Errorf("%s: the body is longer than the %d-byte object: %w", key, resp.Size, driver.ErrCorrupt)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.stats.AddBytes(dropped + int64(len(buf)))
			if err == io.ErrUnexpectedEOF || IsRetryable(err) {
				return nil, Retryable(fmt.Errorf("reading %s: %w", key, err), 0)
			}
			return nil, fmt.Errorf("reading %s: %w", key, err)
		}
	}
	got := dropped + int64(len(buf))
	t.stats.AddBytes(got)
	size := resp.Size
	if size < 0 {
		size = got // the whole object, read to its end
	} else if resp.Start+got < size {
		return nil, Retryable(fmt.Errorf("reading %s: short body: %d of %d bytes: %w", key, got, size-resp.Start, io.ErrUnexpectedEOF), 0)
	}
	if int64(len(buf)) > limit {
		buf = buf[int64(len(buf))-want:]
	}
	h := &head{size: size, version: resp.Version, mod: resp.ModTime}
	start := size - int64(len(buf))
	tailLen := min(int64(len(buf)), want)
	h.tailOff = size - tailLen
	// The tail is kept with the head and pinned to every blob of the
	// object: it gets an array of its own, so that it does not keep alive
	// the whole body (which the cache copies) or a larger buffer it was
	// read into, memory that no bound counts.
	h.tail = bytes.Clone(buf[int64(len(buf))-tailLen:])
	if start == 0 && tailLen < int64(len(buf)) {
		h.whole = buf // the tail too, so that every block is whole
	}
	return h, nil
}

// Stat describes name. A name that is not an object but has entries under
// it is a directory (when the backend can list).
func (t *Tree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name == "." {
		return &driver.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555}, nil
	}
	h, err := t.open(ctx, name)
	if err == nil {
		return &driver.FileInfo{FName: path.Base(name), FSize: h.size, FMode: 0o444, FModTime: h.mod, FSys: h.version}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	// A listing that succeeds, even empty, is a directory (Backend.List
	// fails with fs.ErrNotExist for one that does not exist); a denied one
	// says more than "not found".
	if _, lerr := t.b.List(ctx, name); lerr == nil {
		return &driver.FileInfo{FName: path.Base(name), FMode: fs.ModeDir | 0o555}, nil
	} else if errors.Is(lerr, fs.ErrPermission) {
		return nil, lerr
	}
	return nil, err
}

// ReadDir lists the directory name. When there is no such directory but
// name is an object, the error matches driver.ErrNotDir.
func (t *Tree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	d := name
	if d == "." {
		d = ""
	}
	ents, err := t.b.List(ctx, d)
	if err != nil && name != "." && errors.Is(err, fs.ErrNotExist) {
		if _, oerr := t.open(ctx, name); oerr == nil {
			return nil, fmt.Errorf("%s: %w", t.b.Key(name), driver.ErrNotDir)
		}
	}
	return ents, err
}

// OpenBlob opens the object name: one request the first time, none after.
// The blob is a *Blob.
func (t *Tree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if name == "." {
		return nil, driver.ErrIsDir
	}
	h, err := t.open(ctx, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := t.b.List(ctx, name); lerr == nil {
				return nil, driver.ErrIsDir
			}
		}
		return nil, err
	}
	info := &driver.FileInfo{FName: path.Base(name), FSize: h.size, FMode: 0o444, FModTime: h.mod, FSys: h.version}
	// The size is part of the key: without a version (a server with no
	// validators) it is all that tells two versions apart.
	key := t.b.Key(name) + "\x00" + h.version + "\x00" + strconv.FormatInt(h.size, 10)
	src := &source{t: t, name: name, version: h.version, size: h.size}
	blob := t.c.Blob(src, key, info, &t.stats)
	blob.Pin(h.tailOff, h.tail)
	t.mu.Lock()
	whole := h.whole
	h.whole = nil
	if t.heads[name] == h {
		// Only while the memo still counts it: a concurrent open may
		// have cleared the memo and its count already.
		t.headBytes -= int64(len(whole))
	}
	t.mu.Unlock()
	if whole != nil {
		blob.Put(0, whole)
	}
	return &Blob{Blob: blob, t: t, key: t.b.Key(name), src: src}, nil
}

// Blob is an open remote object: a cache.Blob (so a driver.Blob and a
// driver.Prefetcher) that also lets archive readers grow the first read.
type Blob struct {
	*cache.Blob
	t   *Tree
	key string
	src *source
}

// Close releases the whole-object body a server that ignores Range left
// open for the next sequential read, if any. The blob can still be read.
func (b *Blob) Close() error {
	b.src.close()
	return nil
}

// GrowSuffix asks that later opens of this object, and of other objects of
// the tree, read at least n bytes first (capped at 8 MiB): see Tree.Grow.
// Archive readers call it when their end structures needed more than the
// first read held.
func (b *Blob) GrowSuffix(n int64) {
	b.t.Grow(n)
	setHint(b.key, n)
}

// source reads one version of one object through the backend.
type source struct {
	t       *Tree
	name    string
	version string
	size    int64

	mu     sync.Mutex
	parked *resumer // a whole-object body stopped where a range ended
}

// ReadRange returns the n bytes at off, resuming a body that is cut short.
// When the server sent the whole object for an earlier range (it ignores
// Range), that body was kept where the range ended: a range at or after
// that point continues it instead of streaming the object from its start
// again, so a sequential read costs the object once, not once per block.
func (s *source) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	s.mu.Lock()
	p := s.parked
	s.parked = nil
	s.mu.Unlock()
	if p != nil {
		if p.off <= off && off-p.off <= maxParkedSkip {
			p.ctx, p.end, p.parked = ctx, off, true
			m, err := io.Copy(io.Discard, p)
			s.t.stats.AddBytes(m)
			if err == nil {
				p.end = off + n
				return p, nil
			}
		}
		p.body.Close()
	}
	r := &resumer{ctx: ctx, s: s, off: off, end: off + n}
	if err := r.reopen(true); err != nil {
		return nil, err
	}
	return r, nil
}

// maxParkedSkip bounds how far ahead of a kept body a range may start and
// still continue it rather than ask again.
const maxParkedSkip = 64 << 20

// close releases a kept body.
func (s *source) close() {
	s.mu.Lock()
	p := s.parked
	s.parked = nil
	s.mu.Unlock()
	if p != nil {
		p.body.Close()
	}
}

// resumer reads [off, end) of an object and, when a body breaks, asks for
// the rest with a new conditional request. The attempts of all its
// requests share the Retry bound.
type resumer struct {
	ctx      context.Context
	s        *source
	off, end int64
	body     io.ReadCloser
	attempts int
	whole    bool // the body goes on past end: the server ignored the range
	parked   bool // the body was kept from an earlier range
}

// reopen asks for the rest of the range. The cache counts the first
// request of a range; the tree counts the others.
func (r *resumer) reopen(first bool) error {
	if r.body != nil {
		r.body.Close()
		r.body = nil
	}
	t := r.s.t
	return t.o.Retry.do(r.ctx, &r.attempts, func() error {
		if !first {
			t.stats.AddRequest()
		}
		first = false
		resp, err := t.b.Get(r.ctx, r.s.name, r.off, r.end-r.off, r.s.version)
		if errors.Is(err, fs.ErrNotExist) {
			// Deleted since open: a change like any other.
			return fmt.Errorf("%w: %w", err, driver.ErrModified)
		}
		if err != nil {
			return err
		}
		key := t.b.Key(r.s.name)
		if resp.Size >= 0 && resp.Size != r.s.size {
			resp.Body.Close()
			return fmt.Errorf("%s: size changed from %d to %d: %w", key, r.s.size, resp.Size, driver.ErrModified)
		}
		if r.s.version != "" && resp.Version != r.s.version {
			resp.Body.Close()
			return fmt.Errorf("%s: version changed from %q to %q: %w", key, r.s.version, resp.Version, driver.ErrModified)
		}
		if resp.Start > r.off {
			resp.Body.Close()
			return fmt.Errorf("%s: asked for bytes from %d, got from %d: %w", key, r.off, resp.Start, driver.ErrCorrupt)
		}
		r.whole = resp.Start < r.off || resp.Length < 0 || resp.Length > r.end-r.off
		if skip := r.off - resp.Start; skip > 0 {
			// The server ignored the range: stream up to what is needed.
			m, err := io.CopyN(io.Discard, resp.Body, skip)
			t.stats.AddBytes(m)
			if err != nil {
				resp.Body.Close()
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return Retryable(fmt.Errorf("reading %s: %w", key, err), 0)
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
		if r.parked {
			// A kept body may have died with the request that opened
			// it: ask again, as if it had never been kept.
			r.parked = false
			if err := r.reopen(false); err != nil {
				return 0, err
			}
			continue
		}
		if !IsRetryable(err) || r.attempts >= r.s.t.o.Retry.withDefaults().MaxAttempts {
			return 0, fmt.Errorf("reading %s at %d: %w", r.s.t.b.Key(r.s.name), r.off, err)
		}
		if err := r.reopen(false); err != nil {
			return 0, err
		}
	}
}

// Close closes the body, or keeps it for the next range when it is a
// whole-object body read to the end of this range.
func (r *resumer) Close() error {
	if r.body == nil {
		return nil
	}
	if r.whole && r.off == r.end && r.end < r.s.size {
		r.ctx = nil
		r.s.mu.Lock()
		old := r.s.parked
		r.s.parked = r
		r.s.mu.Unlock()
		if old != nil {
			old.body.Close()
		}
		return nil
	}
	return r.body.Close()
}
