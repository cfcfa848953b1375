package remote

import (
	"sync"

	"github.com/pipefs/pipefs/vfs"
)

// hints remembers, per object key, the suffix that its archive reader
// asked for, so that opening the same object again (from another tree, in
// a later pipeline opened with the same vfs.Cache) costs one request. It
// is a resource of the vfs.Cache.
type hints struct {
	mu sync.Mutex
	m  map[string]int64
}

// hintsKey keys the hints among the resources of a vfs.Cache.
type hintsKey struct{}

// hintsFor returns the hints of c.
func hintsFor(c *vfs.Cache) *hints {
	return c.Resource(hintsKey{}, func() any { return &hints{} }).(*hints)
}

func (h *hints) get(key string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m[key]
}

func (h *hints) set(key string, n int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil || len(h.m) >= 4096 {
		h.m = map[string]int64{} // a bound; hints are cheap to learn again
	}
	h.m[key] = max(h.m[key], min(n, maxSuffix))
}
