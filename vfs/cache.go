package vfs

import (
	"sync"

	"github.com/pipefs/pipefs/internal/lru"
)

// DefaultCacheBudget is the byte budget of a Cache made with a budget of 0,
// and of the shared default cache.
const DefaultCacheBudget = 512 << 20

// A Cache holds what pipefs keeps between the opens of pipelines: blocks
// fetched from remote objects, indexes derived from archives and streams
// (tar tables, the DEFLATE checkpoints of gzip streams and zip members),
// and resources such as SDK clients, what remote roots learned about their
// servers, and the store of the memory: root.
//
// Derived data lives in one LRU bounded in bytes ([Cache.Get],
// [Cache.Add]); resources live as long as the Cache ([Cache.Resource]). Two
// Caches share nothing, so a server can give each tenant its own, and tests
// stay independent; pipelines opened with the same Cache share everything.
// Options.Cache nil means the shared default, [DefaultCache].
//
// A Cache lives in memory only: the store on disk where drivers keep
// their indexes for later processes is Options.Disk ([Env.DiskIndex]).
//
// Drivers key their entries with a key type of their own package, as
// context values are keyed, so that drivers never collide. An entry whose
// value is an [Evicted] is told when it leaves the cache. A Cache is safe
// for concurrent use.
type Cache struct {
	lru *lru.Weighted[any, any]

	mu  sync.Mutex
	res map[any]any
}

// NewCache returns an empty cache whose derived data is bounded by budget
// bytes; 0 means DefaultCacheBudget.
func NewCache(budget int64) *Cache {
	if budget <= 0 {
		budget = DefaultCacheBudget
	}
	l := lru.New[any, any](budget)
	l.OnEvict = func(_, v any) {
		if e, ok := v.(Evicted); ok {
			e.Evicted()
		}
	}
	return &Cache{lru: l, res: map[any]any{}}
}

// Evicted is implemented by entries that want to know when they leave the
// cache: evicted for the budget, removed, or purged (not when Add replaces
// them). Evicted is called with the cache's lock held: it must not call
// the cache.
type Evicted interface {
	Evicted()
}

var defaultCache = sync.OnceValue(func() *Cache { return NewCache(0) })

// DefaultCache returns the cache of pipelines opened with no Options.Cache,
// shared by the process. It is made empty, with DefaultCacheBudget, at
// its first use.
func DefaultCache() *Cache { return defaultCache() }

// Budget returns the byte budget of the cache's derived data.
func (c *Cache) Budget() int64 { return c.lru.Budget() }

// SetBudget sets the byte budget and evicts until it is met.
func (c *Cache) SetBudget(budget int64) {
	if budget <= 0 {
		budget = DefaultCacheBudget
	}
	c.lru.Resize(budget)
}

// Size returns the bytes of derived data held.
func (c *Cache) Size() int64 { return c.lru.Weight() }

// Len returns the number of entries of derived data.
func (c *Cache) Len() int { return c.lru.Len() }

// Purge drops all derived data. Resources stay.
func (c *Cache) Purge() { c.lru.Purge() }

// Get returns the entry for key and marks it used.
func (c *Cache) Get(key any) (any, bool) { return c.lru.Get(key) }

// Peek returns the entry for key without marking it used.
func (c *Cache) Peek(key any) (any, bool) { return c.lru.Peek(key) }

// Add keeps v under key, costing size bytes of the budget, and evicts the
// least recently used entries until the budget is met. It reports whether
// v is still held (an entry larger than the budget is not).
func (c *Cache) Add(key, v any, size int64) bool { return c.lru.Add(key, v, size) }

// Grow adds delta bytes to the cost of the entry for key, as an index that
// is still being built grows, and evicts as Add does. It reports whether the
// entry is still held.
func (c *Cache) Grow(key any, delta int64) bool { return c.lru.Grow(key, delta) }

// Remove drops the entry for key.
func (c *Cache) Remove(key any) { c.lru.Remove(key) }

// Resource returns the resource for key, calling make the first time the
// cache is asked for it. Resources are not evicted: they are what a driver
// keeps for the life of the cache (a block cache, SDK clients, what it
// learned about a server). make runs at most once per key, under the lock
// of the cache's resources: it must not call Resource.
func (c *Cache) Resource(key any, make func() any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.res[key]; ok {
		return v
	}
	v := make()
	c.res[key] = v
	return v
}

// EffectiveCache returns the cache pipelines opened with o use: o.Cache,
// or DefaultCache when o or o.Cache is nil.
func (o *Options) EffectiveCache() *Cache { return o.cache() }

// cache returns the cache of o (o may be nil).
func (o *Options) cache() *Cache {
	if o == nil || o.Cache == nil {
		return DefaultCache()
	}
	return o.Cache
}
