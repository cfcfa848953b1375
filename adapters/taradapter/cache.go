package taradapter

import (
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/pipefs/pipefs/vfs"
)

// The process-wide index cache keeps at most maxCachedArchives indexes
// and, beyond the most recently used one, at most maxCachedEntries entries
// in all: an entry costs about 200 bytes with its header, so the cache
// stays under about 1 GiB while one archive at the MaxEntries limit can
// still be cached alone.
const (
	maxCachedArchives = 256
	maxCachedEntries  = 4 << 20
)

// indexes is the process-wide cache of archive indexes.
var indexes = newIndexCache(maxCachedArchives, maxCachedEntries)

// A cacheKey names the bytes of an archive and the limits its index was
// built under: the canonical pipeline of the archive file, its size and
// modification time (a fingerprint, so that a rewritten local file is
// scanned again), and the limits that change what a scan returns.
type cacheKey struct {
	url        string
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

// indexCache is an LRU of shared indexes, bounded by count and by the
// total number of index entries.
type indexCache struct {
	mu         sync.Mutex
	lru        *simplelru.LRU[cacheKey, *shared]
	entries    int
	maxEntries int
}

func newIndexCache(archives, entries int) *indexCache {
	c := &indexCache{maxEntries: entries}
	lru, err := simplelru.NewLRU(archives, func(_ cacheKey, sh *shared) {
		c.entries -= sh.weight // c.mu is held: evictions happen in Add and RemoveOldest
	})
	if err != nil {
		panic(err)
	}
	c.lru = lru
	return c
}

// get returns the shared index holder of k, adding an empty one (whose
// index is built at first use) if there is none.
func (c *indexCache) get(k cacheKey) *shared {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sh, ok := c.lru.Get(k); ok {
		return sh
	}
	sh := &shared{key: k}
	c.lru.Add(k, sh)
	return sh
}

// add caches sh, whose index was built before its key was known, under
// k, unless the cache holds an index of k already.
func (c *indexCache) add(k cacheKey, sh *shared) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lru.Contains(k) {
		return
	}
	sh.key = k
	c.lru.Add(k, sh)
}

// charge records that sh, now built, holds n entries, and evicts the
// least recently used indexes until the total fits (the newest stays).
// Archives already open keep their index; only later opens scan again.
func (c *indexCache) charge(sh *shared, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.lru.Get(sh.key); !ok || cur != sh {
		return // evicted while it was built, or not cached at all
	}
	sh.weight = n
	c.entries += n
	for c.entries > c.maxEntries && c.lru.Len() > 1 {
		c.lru.RemoveOldest()
	}
}

// reset empties the cache, for tests.
func (c *indexCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Purge()
	c.entries = 0
}
