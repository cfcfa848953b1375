package vfs_test

import (
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// evictCounter counts the times it left a cache.
type evictCounter struct{ n *int }

func (e evictCounter) Evicted() { *e.n++ }

// An entry that implements Evicted is told when it leaves the cache by
// eviction, Remove or Purge; Peek does not mark an entry used.
func TestCacheEvictedAndPeek(t *testing.T) {
	c := vfs.NewCache(100)
	var a, b, d int
	c.Add("a", evictCounter{&a}, 40)
	c.Add("b", evictCounter{&b}, 40)
	if _, ok := c.Peek("a"); !ok {
		t.Fatal("Peek(a) found nothing")
	}
	c.Add("d", evictCounter{&d}, 40) // evicts a: Peek did not make it recent
	if a != 1 || b != 0 || d != 0 {
		t.Errorf("after an eviction: evicted a %d, b %d, d %d times; want 1, 0, 0", a, b, d)
	}
	if _, ok := c.Get("a"); ok {
		t.Error("a is still held")
	}
	c.Remove("b")
	if b != 1 {
		t.Errorf("Remove(b): evicted %d times, want 1", b)
	}
	c.Purge()
	if d != 1 || c.Size() != 0 || c.Len() != 0 {
		t.Errorf("Purge: d evicted %d times, %d bytes in %d entries left", d, c.Size(), c.Len())
	}
}

func TestEffectiveCache(t *testing.T) {
	c := vfs.NewCache(0)
	var nilOpts *vfs.Options
	if nilOpts.EffectiveCache() != vfs.DefaultCache() || (&vfs.Options{}).EffectiveCache() != vfs.DefaultCache() {
		t.Error("EffectiveCache of nil options or a nil Cache is not DefaultCache")
	}
	if (&vfs.Options{Cache: c}).EffectiveCache() != c {
		t.Error("EffectiveCache is not Options.Cache")
	}
}
