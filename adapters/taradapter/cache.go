package taradapter

import (
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// Indexes of archives are entries of the vfs.Cache of the pipeline
// (Options.Cache), keyed by cacheKey. An index costs the cache indexBase
// bytes when its holder is added, and entryCost bytes per entry once it is
// built (an entry with its header is about that size), so the cache's one
// byte budget bounds the indexes together with the rest of what it holds.
// An index evicted stays with the Archives that hold it; later opens scan
// again.
const (
	indexBase = 1 << 10
	entryCost = 200
)

// A cacheKey names the bytes of an archive and the limits its index was
// built under: the vfs.Env.Key of the archive file (its canonical pipeline
// and the version of the object it is read from, so that a replaced object
// is scanned again), its size and modification time, and the limits that
// change what a scan returns.
type cacheKey struct {
	url        string // vfs.Env.Key
	size       int64
	mtime      int64 // UnixNano, 0 when the blob has no time
	maxEntries int
	maxName    int
}

func keyOf(url string, b driver.Blob, lim vfs.Limits) cacheKey {
	info := b.Stat()
	k := cacheKey{url: url, size: info.Size(), maxEntries: lim.MaxEntries, maxName: lim.MaxNameLength}
	if t := info.ModTime(); !t.IsZero() {
		k.mtime = t.UnixNano()
	}
	return k
}

// state is what the tar adapter keeps as a resource of a vfs.Cache: the
// lock under which index holders are looked up and added, so that
// concurrent opens of one archive share one, and the count of scans made
// by the archives opened with the cache.
type state struct {
	mu    sync.Mutex
	scans atomic.Int64
	loads atomic.Int64 // indexes loaded from disk instead of scanned
}

// stateKey keys the state among the resources of a vfs.Cache.
type stateKey struct{}

// stateOf returns the state of c.
func stateOf(c *vfs.Cache) *state {
	return c.Resource(stateKey{}, func() any { return new(state) }).(*state)
}

// get returns the shared index holder of k in c, adding an empty one
// (whose index is built at first use) if there is none.
func get(c *vfs.Cache, k cacheKey) *shared {
	st := stateOf(c)
	st.mu.Lock()
	defer st.mu.Unlock()
	if v, ok := c.Get(k); ok {
		return v.(*shared)
	}
	sh := &shared{c: c, st: st, key: k}
	sh.cached.Store(true)
	c.Add(k, sh, indexBase)
	return sh
}

// add caches sh, whose index was built before its key was known, under k
// in sh's cache, unless the cache holds an index of k already.
func (sh *shared) add(k cacheKey) {
	sh.st.mu.Lock()
	defer sh.st.mu.Unlock()
	if _, ok := sh.c.Peek(k); ok {
		return
	}
	sh.key = k
	sh.cached.Store(true)
	sh.c.Add(k, sh, indexBase)
}

// charge counts the n entries of sh's index, now built, in its cache,
// while the cache still holds sh. Archives already open keep their index;
// only later opens scan again.
func (sh *shared) charge(n int) {
	sh.st.mu.Lock()
	defer sh.st.mu.Unlock()
	if !sh.cached.Load() {
		return
	}
	if v, ok := sh.c.Peek(sh.key); ok && v == sh {
		sh.c.Grow(sh.key, int64(n)*entryCost)
	}
}
