// Package lru is the one weighted LRU of pipefs: entries have a cost, and
// the least recently used are evicted while the total cost is over budget.
// It is built on hashicorp/golang-lru/v2's simplelru, which orders the
// entries; this package adds the weights.
package lru

import (
	"math"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// A Weighted is an LRU bounded by the total weight of its entries. It is
// safe for concurrent use. An entry heavier than the whole budget is not
// kept, and does not evict the others. OnEvict, when set before use, is called for each entry that leaves
// the cache, by eviction, Remove or Purge, with the cache's lock held: it
// must not call back into the cache.
type Weighted[K comparable, V any] struct {
	OnEvict func(K, V)

	mu     sync.Mutex
	l      *simplelru.LRU[K, entry[V]]
	total  int64
	budget int64
}

type entry[V any] struct {
	v V
	w int64
}

// New returns an empty cache holding at most budget in weight.
func New[K comparable, V any](budget int64) *Weighted[K, V] {
	c := &Weighted[K, V]{budget: budget}
	l, err := simplelru.NewLRU(math.MaxInt, func(k K, e entry[V]) {
		c.total -= e.w
		if c.OnEvict != nil {
			c.OnEvict(k, e.v)
		}
	})
	if err != nil {
		panic(err) // only for a size <= 0
	}
	c.l = l
	return c
}

// Get returns the value of key and marks it used.
func (c *Weighted[K, V]) Get(key K) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.l.Get(key)
	return e.v, ok
}

// Peek returns the value of key without marking it used.
func (c *Weighted[K, V]) Peek(key K) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.l.Peek(key)
	return e.v, ok
}

// Add adds or replaces key with weight w, then evicts the least recently
// used entries until the total fits the budget. It reports whether key is
// still held afterwards.
func (c *Weighted[K, V]) Add(key K, v V, w int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w > c.budget {
		c.l.Remove(key) // the old value, if any, is replaced by nothing
		return false
	}
	if old, ok := c.l.Peek(key); ok {
		c.total -= old.w
		c.l.Add(key, entry[V]{v, w}) // no eviction callback for a replacement
	} else {
		c.l.Add(key, entry[V]{v, w})
	}
	c.total += w
	c.shrink()
	return c.l.Contains(key)
}

// Grow adds delta to the weight of key, when it is held, and evicts as Add
// does. It reports whether key is still held.
func (c *Weighted[K, V]) Grow(key K, delta int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.l.Peek(key)
	if !ok {
		return false
	}
	if e.w+delta > c.budget {
		c.l.Remove(key)
		return false
	}
	e.w += delta
	c.total += delta
	c.l.Add(key, e)
	c.shrink()
	return c.l.Contains(key)
}

// Remove drops key.
func (c *Weighted[K, V]) Remove(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.l.Remove(key)
}

// Purge drops every entry.
func (c *Weighted[K, V]) Purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.l.Purge()
}

// Len returns the number of entries.
func (c *Weighted[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.l.Len()
}

// Weight returns the total weight of the entries.
func (c *Weighted[K, V]) Weight() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Budget returns the budget.
func (c *Weighted[K, V]) Budget() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.budget
}

// Resize sets the budget and evicts until the total fits.
func (c *Weighted[K, V]) Resize(budget int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget = budget
	c.shrink()
}

func (c *Weighted[K, V]) shrink() {
	for c.total > c.budget && c.l.Len() > 0 {
		c.l.RemoveOldest()
	}
}
