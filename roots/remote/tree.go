package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
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

// A VersionShower is a Backend whose versions are encodings of its own
// (several validators in one string, as httproot's): ShowVersion returns
// the version as people know it (an ETag, a date), which the FileInfo of
// the object reports as its Sys value. The encoded version stays what
// reads are conditional on and what cache keys and fingerprints carry.
type VersionShower interface {
	ShowVersion(version string) string
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

// Options configure a Tree. Zero fields mean the defaults.
type Options struct {
	Retry Retry
	// Cache holds the blocks read; nil means the block cache of the
	// vfs.Cache given to NewTree (cache.For). Tests set it to size the
	// blocks.
	Cache *cache.Cache
	// SuffixSize is the size of the first read of an object. Default
	// 64 KiB; it grows per tree, up to 8 MiB, when an archive's
	// directory needed more.
	SuffixSize int64
}

const (
	defaultSuffix = 64 << 10
	maxSuffix     = 8 << 20
	// maxWhole bounds the part of an object that a server ignoring
	// Range sends whole that is spooled in memory rather than to a
	// temporary file.
	maxWhole = 64 << 20
	// maxHeadBytes bounds the suffixes a tree keeps for objects it
	// opened.
	maxHeadBytes = 64 << 20
)

// Tree is a driver.Tree over a Backend. It is safe for concurrent use.
type Tree struct {
	b     Backend
	o     Options
	env   *vfs.Env // the open of the root that made the tree
	c     *cache.Cache
	hints *hints
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

	ignored atomic.Pointer[IgnoredRange] // the first server seen to ignore Range
}

// IgnoredRange describes the first object of a tree whose server sent the
// whole object when a range was asked for.
type IgnoredRange struct {
	Key  string // the object's URL
	Size int64  // the bytes sent, the whole object
}

// ignoredRangeWarning keys the warning about an object whose server sent
// it whole for a range among the warnings of a vfs.Cache.
type ignoredRangeWarning struct{ key string }

// noteIgnoredRange records that the server of key sent all size bytes of
// it for a range, and warns about the object, once per vfs.Cache.
func (t *Tree) noteIgnoredRange(key string, size int64) {
	t.ignored.CompareAndSwap(nil, &IgnoredRange{Key: key, Size: size})
	t.env.Warn(ignoredRangeWarning{key}, "the server ignores Range requests: the whole object is downloaded once and kept (in memory or a temporary file) while the pipeline is open",
		"url", key, "bytes", size)
}

// IgnoredRange returns the first object whose server sent it whole for a
// range (it ignores Range), or nil when none did. Such an object is read
// once, at open, and kept while the pipeline is open. Each such object is
// also logged as a warning with the pipeline's vfs.Options.Logger, once
// per vfs.Cache (vfs.Env.Warn).
func (t *Tree) IgnoredRange() *IgnoredRange { return t.ignored.Load() }

// head is what opening an object learned.
type head struct {
	size    int64
	version string
	mod     time.Time
	tailOff int64
	tail    []byte // pinned to every blob of the object
	// spool holds the whole object when the server sent it all for a
	// range; the head holds a reference while it is in the tree's memo.
	spool *spool
}

// dropHeads clears the memo of opened objects, releasing their spools
// (blobs still open keep theirs). t.mu is held.
func (t *Tree) dropHeads() {
	for _, h := range t.heads {
		if h.spool != nil {
			h.spool.release()
		}
	}
	clear(t.heads)
	t.headBytes = 0
}

// Close releases what the tree keeps of the objects it opened: the
// memo, and with it the spools of objects that servers sent whole (their
// temporary files are removed once the blobs reading them are closed too).
// The tree can still be used; it learns the objects again.
func (t *Tree) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dropHeads()
	return nil
}

// NewTree returns the tree of b for the open of a root that env was given
// (nil means vfs.NewEnv's defaults). env.Cache holds the blocks read,
// unless o.Cache is set, and what the tree learns about the suffixes of
// objects; env.Warn logs what the tree warns about.
func NewTree(b Backend, env *vfs.Env, o Options) *Tree {
	if env == nil {
		env = vfs.NewEnv("", "", nil)
	}
	t := &Tree{b: b, o: o, env: env, c: o.Cache, hints: hintsFor(env.Cache), heads: map[string]*head{}}
	if t.c == nil {
		t.c = cache.For(env.Cache)
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

// shownVersion returns version as the FileInfo of an object reports it:
// as the backend shows it (see VersionShower), or as it is.
func (t *Tree) shownVersion(version string) string {
	if v, ok := t.b.(VersionShower); ok {
		return v.ShowVersion(version)
	}
	return version
}

// Stat describes name. A name that is not an object but has entries under
// it is a directory (when the backend can list).
func (t *Tree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name == "." {
		return &driver.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555}, nil
	}
	h, err := t.open(ctx, name)
	if err == nil {
		return &driver.FileInfo{FName: path.Base(name), FSize: h.size, FMode: 0o444, FModTime: h.mod, FSys: t.shownVersion(h.version)}, nil
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
// The blob is a *Blob, and when the backend is a Putter, also a
// driver.Sidecars that keeps sidecars beside the object.
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
	info := &driver.FileInfo{FName: path.Base(name), FSize: h.size, FMode: 0o444, FModTime: h.mod, FSys: t.shownVersion(h.version)}
	// The size is part of the key: without a version (a server with no
	// validators) it is all that tells two versions apart.
	key := t.b.Key(name) + "\x00" + h.version + "\x00" + strconv.FormatInt(h.size, 10)
	src := &source{t: t, name: name, version: h.version, size: h.size}
	if h.spool != nil && h.spool.acquire() {
		src.spool = h.spool
	}
	blob := t.c.Blob(src, key, info, &t.stats)
	blob.Pin(h.tailOff, h.tail)
	b := &Blob{Blob: blob, t: t, key: t.b.Key(name), src: src}
	if p, ok := t.b.(Putter); ok {
		return sidecarBlob{b, p}, nil
	}
	return b, nil
}

// Blob is an open remote object: a cache.Blob (so a driver.Blob and a
// driver.Prefetcher) that also lets archive readers grow the first read,
// and a driver.Revalidator.
type Blob struct {
	*cache.Blob
	t   *Tree
	key string
	src *source
}

var _ driver.Revalidator = (*Blob)(nil)

// Fingerprint returns the version the object had when it was opened (its
// ETag or generation, as the backend gave it, which every read of the blob
// is conditional on) and its size; "" when the service gave no version.
func (b *Blob) Fingerprint() string {
	if b.src.version == "" {
		return ""
	}
	return b.src.version + "\x00" + strconv.FormatInt(b.src.size, 10)
}

// Revalidate asks the service whether the object still has the version
// the blob was opened at: one request (retried as reads are), for the
// object's last byte and conditional on that version, whose answer is
// compared as a read's is (version and size). It returns nil when the
// object is unchanged, an error matching driver.ErrModified when it
// changed or, matching fs.ErrNotExist too, was deleted, and the request's
// error otherwise. The tree's Stats count the request.
func (b *Blob) Revalidate(ctx context.Context) error {
	s, t := b.src, b.t
	return t.o.Retry.Do(ctx, func() error {
		t.stats.AddRequest()
		resp, err := t.b.Get(ctx, s.name, -1, 0, s.version)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %w", err, driver.ErrModified)
		}
		if err != nil {
			return err
		}
		// The byte, read so that the connection can be used again; a
		// server that sent the whole object has its body cut.
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		t.stats.AddBytes(n)
		resp.Body.Close()
		switch {
		case resp.Size >= 0 && resp.Size != s.size:
			return fmt.Errorf("%s: size changed from %d to %d: %w", b.key, s.size, resp.Size, driver.ErrModified)
		case s.version != "" && resp.Version != s.version:
			return fmt.Errorf("%s: version changed from %q to %q: %w", b.key, s.version, resp.Version, driver.ErrModified)
		}
		return nil
	})
}

// Close waits for the parts of parallel readahead under way
// (cache.Blob.WaitParts), and releases the whole-object body a server that
// ignores Range left open for the next sequential read, if any, and the
// blob's reference to the spooled object. The blob can still be read.
func (b *Blob) Close() error {
	b.Blob.WaitParts()
	b.src.close()
	return nil
}

// GrowSuffix asks that later opens of this object, and of other objects of
// the tree, read at least n bytes first (capped at 8 MiB): see Tree.Grow.
// Archive readers call it when their end structures needed more than the
// first read held.
func (b *Blob) GrowSuffix(n int64) {
	b.t.Grow(n)
	b.t.hints.set(b.key, n)
}
