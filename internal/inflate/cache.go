package inflate

import (
	"sync"

	"github.com/pipefs/pipefs/vfs"
)

// indexKey keys an Index among the entries of a vfs.Cache.
type indexKey string

// indexBase is what an index costs in the vfs.Cache besides the windows of
// its checkpoints: its first point and bookkeeping, roughly.
const indexBase = 1 << 10

// indexLock is a resource of a vfs.Cache: the lock under which an index is
// looked up and added, so that concurrent opens of one stream share one
// index.
type indexLock struct{ sync.Mutex }

// indexLockKey keys the indexLock among the resources of a vfs.Cache.
type indexLockKey struct{}

// cached returns the index for key in c, creating it when absent. An empty
// key makes an uncached index.
func cached(c *vfs.Cache, key string, first int64) *Index {
	if key == "" {
		return newIndex(nil, "", first)
	}
	mu := lockOf(c)
	mu.Lock()
	defer mu.Unlock()
	if v, ok := c.Get(indexKey(key)); ok {
		return v.(*Index)
	}
	ix := newIndex(c, key, first)
	c.Add(indexKey(key), ix, indexBase)
	return ix
}

func lockOf(c *vfs.Cache) *indexLock {
	return c.Resource(indexLockKey{}, func() any { return new(indexLock) }).(*indexLock)
}

// grew counts n more window bytes of ix in its cache, while the cache
// still holds it. Indexes in use by open streams stay usable after
// eviction; later opens rebuild them. The index lock makes the check and
// the growth one step: no new index can take ix's key in between.
func (ix *Index) grew(n int64) {
	if ix.c == nil {
		return
	}
	mu := lockOf(ix.c)
	mu.Lock()
	defer mu.Unlock()
	if v, ok := ix.c.Peek(indexKey(ix.key)); ok && v == ix {
		ix.c.Grow(indexKey(ix.key), n)
	}
}

// forget drops ix from its cache, if the cache holds it.
func (ix *Index) forget() {
	if ix.c == nil {
		return
	}
	mu := lockOf(ix.c)
	mu.Lock()
	defer mu.Unlock()
	if v, ok := ix.c.Peek(indexKey(ix.key)); ok && v == ix {
		ix.c.Remove(indexKey(ix.key))
	}
}
