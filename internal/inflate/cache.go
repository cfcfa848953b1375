package inflate

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// DefaultCacheLimit is the default byte budget of the process-wide index
// cache: 8192 checkpoints of 32 KiB, the index of 8 GiB of output at the
// default spacing.
const DefaultCacheLimit = 256 << 20

var cache struct {
	mu    sync.Mutex
	lru   *lru.Cache[string, *Index]
	bytes int64 // window bytes of the cached indexes
	limit int64
}

func init() {
	// The LRU bounds the number of indexes; the byte budget is enforced
	// on top of it by evicting the oldest until the windows fit.
	c, err := lru.NewWithEvict(1<<16, func(_ string, ix *Index) {
		cache.bytes -= ix.counted
		ix.counted = 0
	})
	if err != nil {
		panic(err)
	}
	cache.lru = c
	cache.limit = DefaultCacheLimit
}

// SetCacheLimit sets the byte budget of the process-wide index cache (n <=
// 0 means the default) and evicts indexes until it is met. Indexes in use by
// open streams stay usable after eviction; later opens rebuild them.
func SetCacheLimit(n int64) {
	if n <= 0 {
		n = DefaultCacheLimit
	}
	cache.mu.Lock()
	cache.limit = n
	cache.mu.Unlock()
	shrink()
}

// cached returns the index for key, creating it when absent. An empty key
// makes an uncached index.
func cached(key string, first int64) *Index {
	if key == "" {
		return newIndex("", first)
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if ix, ok := cache.lru.Get(key); ok {
		return ix
	}
	ix := newIndex(key, first)
	cache.lru.Add(key, ix)
	return ix
}

// cacheGrew accounts n more window bytes of ix.
func cacheGrew(ix *Index, n int64) {
	if ix.key == "" {
		return
	}
	cache.mu.Lock()
	if cur, ok := cache.lru.Peek(ix.key); !ok || cur != ix {
		cache.mu.Unlock()
		return // evicted: no longer counted
	}
	cache.bytes += n
	ix.counted += n
	cache.mu.Unlock()
	shrink()
}

func shrink() {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	for cache.bytes > cache.limit && cache.lru.Len() > 1 {
		cache.lru.RemoveOldest()
	}
}

// Forget drops the cached index of key, if any.
func Forget(key string) {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	cache.lru.Remove(key)
}
