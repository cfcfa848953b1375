package browse

import (
	"container/list"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
)

// Bounds of the layer cache.
const (
	maxLayers = 32               // opened layers kept
	layerIdle = 10 * time.Minute // a layer unused this long is closed
	maxMemo   = 256              // derived results kept per layer
	memoBytes = 4 << 20          // their approximate size, at most
)

// A layer is one opened pipeline that the handler keeps between requests: a
// directory (fsys) or a dataset file (node, such as an image), with what
// was derived from it (listings with their kinds, descriptions, previews).
type layer struct {
	key    string
	url    string      // the canonical pipeline of a file node
	fsys   *vfs.FS     // nil for a file node
	node   *array.Node // the node of a file node, or of a dataset directory
	closer io.Closer   // what holds it open; nil for the served location as given

	// parent is the layer this one was opened relative to, reading
	// through it (vfs.FS.OpenFS), with name the name in parent's FS it
	// was opened from; nil for a layer opened from its pipeline. The
	// layer holds parent (a reference) until it is closed itself, so a
	// parent is closed after the layers opened through it.
	parent *layer
	name   string

	// base is what the layer was read from, checked before the layer
	// answers a request (see layerCache.check); nil when nothing is.
	base *base
	// live is set for a local tree read as it is at every call (a
	// served directory), whose listings are kept per what they list.
	live   bool
	opened time.Time // when the open returned

	ready chan struct{} // closed once opened
	err   error         // the open's failure

	// Guarded by the cache's mutex. parent and name are set with it held
	// too, before ready is closed.
	refs    int
	used    time.Time
	evicted bool
	pinned  bool          // the served location: never evicted, not in lru
	elem    *list.Element // in lru; nil when pinned

	mu       sync.Mutex
	memo     map[string]memoEntry
	memoSize int         // the weights of memo's values
	closed   atomic.Bool // set once closer was closed
}

// A memoEntry is a value a layer keeps, with the version of what it was
// derived from and its weight.
type memoEntry struct {
	version string
	v       any
	weight  int
}

// remember returns the value kept under key for version, computing and
// keeping it with f the first time. A value kept for another version is
// replaced. f's failures are not kept. weight is the value's approximate
// size in bytes. At most maxMemo values, of memoBytes in all, are kept;
// past that, values are computed every time.
func remember[T any](l *layer, key, version string, weight func(T) int, f func() (T, error)) (T, error) {
	l.mu.Lock()
	e, ok := l.memo[key]
	l.mu.Unlock()
	if ok && e.version == version {
		return e.v.(T), nil
	}
	t, err := f()
	if err != nil {
		return t, err
	}
	w := 64
	if weight != nil {
		w += weight(t)
	}
	l.mu.Lock()
	if l.memo == nil {
		l.memo = map[string]memoEntry{}
	}
	if old, ok := l.memo[key]; ok && old.version != version {
		delete(l.memo, key)
		l.memoSize -= old.weight
	}
	if _, ok := l.memo[key]; !ok && len(l.memo) < maxMemo && l.memoSize+w <= memoBytes {
		l.memo[key] = memoEntry{version: version, v: t, weight: w}
		l.memoSize += w
	}
	l.mu.Unlock()
	return t, nil
}

// layerCache holds the layers that the handler opened, most recently used
// first, and the served location's layer, pinned. A layer is closed when
// it leaves the cache (evicted, idle too long, found stale, or at Close)
// and neither a request nor a layer opened through it holds it; the last
// to let go closes it.
//
// Before a kept layer answers a request, its base is checked (see check):
// a layer whose base changed is dropped, with the layers opened through
// it, and opened again.
type layerCache struct {
	// reg is the registry of the served pipeline: which roots read the
	// local disk (Root.Local), checked by a stat.
	reg *vfs.Registry
	// ctx is the handler's context (the served FS's), which the layers' FSes keep: what a
	// stage writes as it closes (a sidecar) follows it, and not the
	// context of the request that opened the layer, long gone.
	ctx context.Context

	mu        sync.Mutex
	byKey     map[string]*layer
	lru       *list.List
	closed    bool
	now       func() time.Time
	logger    *slog.Logger // logs the layers opened again
	errorText func(error) string

	// revalidate is how long a remote base seen current is not asked
	// again; 0 asks at every request, a negative value never checks.
	revalidate time.Duration
	// bases holds what is known of the remote bases of the layers, by
	// URL, so that layers reading one object share its checks.
	basesMu sync.Mutex
	bases   map[string]*baseState
}

func newLayerCache(ctx context.Context, reg *vfs.Registry) *layerCache {
	return &layerCache{reg: reg, ctx: ctx, byKey: map[string]*layer{}, lru: list.New(), now: time.Now, revalidate: DefaultRevalidate,
		logger: slog.New(slog.DiscardHandler), errorText: func(err error) string { return err.Error() }}
}

// get returns the layer under key, opening it with open the first time,
// and holds it until release. Concurrent requests for one key wait for a
// single open; a failed open is not kept. The open runs with the context
// of the request that asked first, so that a client that goes away stops
// it; a request that was waiting for it then opens the layer itself. A
// layer's FS keeps the server's context, not a request's: requests read
// through FS.WithContext. A kept layer whose base changed is dropped and
// opened again. pin keeps the layer out of the eviction order (the served
// location).
func (c *layerCache) get(ctx context.Context, key string, pin bool, open func(ctx context.Context) (*layer, error)) (*layer, error) {
	for {
		l, waited, err := c.get1(ctx, key, pin, open)
		if waited && err != nil && ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || err == errStale) {
			continue // another request's open was stopped, not ours, or the layer was stale
		}
		return l, err
	}
}

// errStale is what get1 returns for a kept layer it dropped because its
// base changed.
var errStale = errors.New("stale layer")

// get1 is one try of get; waited reports that another request opened
// the layer.
func (c *layerCache) get1(ctx context.Context, key string, pin bool, open func(ctx context.Context) (*layer, error)) (_ *layer, waited bool, _ error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, false, errServerClosed
	}
	stale := c.expire()
	l, ok := c.byKey[key]
	if ok {
		l.refs++
		l.used = c.now()
		if l.elem != nil {
			c.lru.MoveToFront(l.elem)
		}
		c.mu.Unlock()
		closeAll(c, stale)
		select {
		case <-l.ready:
		case <-ctx.Done():
			c.release(l)
			return nil, true, ctx.Err()
		}
		if l.err != nil {
			err := l.err
			c.release(l)
			return nil, true, err
		}
		if err := c.check(ctx, l); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				c.release(l) // the check was stopped, not answered
				return nil, true, cerr
			}
			c.logger.Info("opening again", "pipeline", pipelineOf(l), "reason", c.errorText(err))
			c.mu.Lock()
			idle, restart := c.dropStale(l)
			c.mu.Unlock()
			closeAll(c, idle)
			c.release(l)
			if restart {
				return nil, true, errRestart
			}
			return nil, true, errStale
		}
		return l, true, nil
	}
	l = &layer{key: key, ready: make(chan struct{}), refs: 1, used: c.now(), pinned: pin}
	if !pin {
		l.elem = c.lru.PushFront(l)
	}
	c.byKey[key] = l
	stale = append(stale, c.evict()...)
	c.mu.Unlock()
	closeAll(c, stale)

	opened, err := open(ctx)
	if err == nil {
		l.fsys, l.node, l.closer, l.url = opened.fsys, opened.node, opened.closer, opened.url
		c.mu.Lock()
		if l.parent, l.name = opened.parent, opened.name; l.parent != nil {
			l.parent.refs++ // the request that opened l holds it too
		}
		c.mu.Unlock()
		if l.fsys != nil {
			fsys := l.fsys.WithContext(c.ctx)
			if l.closer == io.Closer(l.fsys) {
				l.closer = fsys // so that closing it follows c.ctx
			}
			l.fsys = fsys
		}
		c.noteOpened(l)
	}
	l.err = err
	close(l.ready)
	if err != nil {
		c.mu.Lock()
		c.drop(l)
		c.mu.Unlock()
		c.release(l)
		return nil, false, err
	}
	return l, false, nil
}

// put adds l, opened by the caller, to the cache, pinned.
func (c *layerCache) put(l *layer) {
	l.pinned = true
	if l.ready == nil {
		l.ready = make(chan struct{})
		close(l.ready)
	}
	c.noteOpened(l)
	c.mu.Lock()
	c.byKey[l.key] = l
	c.mu.Unlock()
}

// errServerClosed answers the requests that arrive once the handler is
// closed.
var errServerClosed = &httpError{status: http.StatusServiceUnavailable, msg: "the handler is closed"}

// release lets go of a layer that get returned, or that a layer opened
// through it held, closing it when it has left the cache and nothing
// holds it.
func (c *layerCache) release(l *layer) {
	c.mu.Lock()
	l.refs--
	closeIt := l.refs == 0 && l.evicted
	c.mu.Unlock()
	if closeIt {
		c.closeLayer(l)
	}
}

// dropStale drops l, whose base changed, and the layers opened through
// it, which read the same bytes, or objects its tree opened as they were
// then. When l read its base through its parent, the parent read the
// same changed base: it is dropped too, and so are the layers above it
// that did; dropStale then reports that the request, which reached l
// through them, must walk its path again. It returns the layers dropped
// that nothing holds, for the caller to close once it has let go of c.mu.
// c.mu is held.
func (c *layerCache) dropStale(l *layer) (idle []*layer, restart bool) {
	dropped := []*layer{l}
	for a := l; a.parent != nil && a.parent.base != nil && a.parent.base == a.base; a = a.parent {
		dropped = append(dropped, a.parent)
		restart = true
	}
	for _, k := range c.byKey {
		for a := k.parent; a != nil; a = a.parent {
			if slices.Contains(dropped, a) {
				dropped = append(dropped, k)
				break
			}
		}
	}
	for _, d := range dropped {
		if !d.evicted {
			c.drop(d)
			if d.refs == 0 {
				idle = append(idle, d)
			}
		}
	}
	return idle, restart
}

// drop removes l from the cache; c.mu is held.
func (c *layerCache) drop(l *layer) {
	if l.evicted {
		return
	}
	l.evicted = true
	if l.elem != nil {
		c.lru.Remove(l.elem)
	}
	if c.byKey[l.key] == l {
		delete(c.byKey, l.key)
	}
}

// evict drops the least recently used layers beyond maxLayers; expire
// those idle longer than layerIdle. c.mu is held. They return the dropped
// layers that nobody holds, for the caller to close once it has let go of
// c.mu.
func (c *layerCache) evict() (idle []*layer) {
	for c.lru.Len() > maxLayers {
		l := c.lru.Back().Value.(*layer)
		c.drop(l)
		if l.refs == 0 {
			idle = append(idle, l)
		}
	}
	return idle
}

func (c *layerCache) expire() (idle []*layer) {
	for e := c.lru.Back(); e != nil; {
		l := e.Value.(*layer)
		e = e.Prev()
		if l.refs == 0 && c.now().Sub(l.used) > layerIdle {
			c.drop(l)
			idle = append(idle, l)
		}
	}
	return idle
}

func closeAll(c *layerCache, ls []*layer) {
	for _, l := range ls {
		c.closeLayer(l)
	}
}

// Len returns the number of layers in the cache, the pinned one aside.
func (c *layerCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Close drops every layer, closing those nothing holds now and the others
// when released.
func (c *layerCache) Close() {
	c.mu.Lock()
	c.closed = true
	var now []*layer
	for _, l := range c.byKey {
		c.drop(l)
		if l.refs == 0 {
			now = append(now, l)
		}
	}
	c.mu.Unlock()
	closeAll(c, now)
}

// closeLayer closes l, which nothing holds, and then lets go of its
// parent.
func (c *layerCache) closeLayer(l *layer) {
	<-l.ready
	if l.closer != nil {
		l.closer.Close()
	}
	l.closed.Store(true)
	if l.parent != nil {
		c.release(l.parent)
	}
}
