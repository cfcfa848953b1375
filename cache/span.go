package cache

import (
	"bytes"
	"context"
	"io"
	"slices"
	"sort"
	"sync"
)

// Spans are the exact extents that readers declared they need
// (Blob.Prefetch): fetched byte for byte, not in aligned blocks, and held
// as entries of the same vfs.Cache as the blocks, costing their length.
// The spans of one object never overlap; a table in the Cache finds the
// one holding an offset.

// gapFill is the largest gap between the end of a declared range and the
// next bytes held (or the object's end) that a fetch of the range takes
// with it: the gap costs less than the request that reading it later
// would make.
const gapFill = 64 << 10

// spanCost is what a span costs in the budget beyond its bytes: its
// entries in the table and the vfs.Cache, so that many small spans (small
// members, small chunks) stay bounded in memory too.
const spanCost = 256

// spanKey keys a span in the vfs.Cache.
type spanKey struct {
	c   *Cache
	obj string
	off int64
}

// A span is the bytes of object obj at off. data is never modified.
type span struct {
	c    *Cache
	obj  string
	off  int64
	data []byte
}

func (s *span) end() int64 { return s.off + int64(len(s.data)) }

// Evicted takes the span out of its Cache's table.
func (s *span) Evicted() { s.c.spans.drop(s) }

// A spanFlight is one span being fetched: [lo, hi) of one object.
type spanFlight struct {
	lo, hi int64
	done   chan struct{}
}

// spanTable indexes the spans of a Cache by object. Its lock is never
// held while the vfs.Cache is called, since the vfs.Cache calls drop
// (span.Evicted) under its own lock.
type spanTable struct {
	mu      sync.Mutex
	held    map[string][]*span // sorted by offset, not overlapping
	flights map[string][]*spanFlight
}

// at returns the span of obj holding pos, or nil.
func (t *spanTable) at(obj string, pos int64) *span {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.held[obj]
	i := sort.Search(len(list), func(i int) bool { return list[i].end() > pos })
	if i < len(list) && list[i].off <= pos {
		return list[i]
	}
	return nil
}

// next returns the offset of the first span of obj starting at or after
// pos, or -1.
func (t *spanTable) next(obj string, pos int64) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.held[obj]
	i := sort.Search(len(list), func(i int) bool { return list[i].off >= pos })
	if i < len(list) {
		return list[i].off
	}
	return -1
}

// insert puts s in the table, trimmed to the bytes no span of its object
// holds yet, and returns the spans it replaces (those inside it) and s as
// inserted; nil when other spans already hold all of it.
func (t *spanTable) insert(s *span) (kept *span, replaced []*span) {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.held[s.obj]
	off, end := s.off, s.end()
	i := sort.Search(len(list), func(i int) bool { return list[i].end() > off })
	j := i
	for j < len(list) && list[j].off < end {
		j++
	}
	if i < j && list[i].off <= off {
		if list[i].end() >= end {
			return nil, nil
		}
		off = list[i].end()
		i++
	}
	if i < j && list[j-1].end() >= end {
		end = list[j-1].off
		j--
	}
	if off != s.off || end != s.end() {
		// A copy, so that the span does not keep alive bytes it does
		// not count.
		s = &span{c: s.c, obj: s.obj, off: off, data: bytes.Clone(s.data[off-s.off : end-s.off])}
	}
	replaced = slices.Clone(list[i:j])
	if t.held == nil {
		t.held = map[string][]*span{}
	}
	t.held[s.obj] = slices.Replace(list, i, j, s)
	return s, replaced
}

// drop takes s out of the table, if it is there.
func (t *spanTable) drop(s *span) {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.held[s.obj]
	i := sort.Search(len(list), func(i int) bool { return list[i].off >= s.off })
	if i < len(list) && list[i] == s {
		list = slices.Delete(list, i, i+1)
		if len(list) == 0 {
			delete(t.held, s.obj)
		} else {
			t.held[s.obj] = list
		}
	}
}

// flightOver returns a fetch under way of obj that covers [lo, hi), or nil.
func (t *spanTable) flightOver(obj string, lo, hi int64) *spanFlight {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range t.flights[obj] {
		if f.lo <= lo && hi <= f.hi {
			return f
		}
	}
	return nil
}

// claimFlight registers f, unless a fetch of obj covering [lo, hi) is
// under way: it then returns that one and registers nothing. Looking and
// registering are one step, so that concurrent callers make one fetch.
func (t *spanTable) claimFlight(obj string, f *spanFlight, lo, hi int64) *spanFlight {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, g := range t.flights[obj] {
		if g.lo <= lo && hi <= g.hi {
			return g
		}
	}
	if t.flights == nil {
		t.flights = map[string][]*spanFlight{}
	}
	t.flights[obj] = append(t.flights[obj], f)
	return nil
}

func (t *spanTable) startFlight(obj string, f *spanFlight) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.flights == nil {
		t.flights = map[string][]*spanFlight{}
	}
	t.flights[obj] = append(t.flights[obj], f)
}

func (t *spanTable) endFlight(obj string, f *spanFlight) {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := slices.DeleteFunc(t.flights[obj], func(g *spanFlight) bool { return g == f })
	if len(list) == 0 {
		delete(t.flights, obj)
	} else {
		t.flights[obj] = list
	}
	close(f.done)
}

// addSpan caches data, the bytes of obj at off, as a span.
func (c *Cache) addSpan(obj string, off int64, data []byte) {
	s, replaced := c.spans.insert(&span{c: c, obj: obj, off: off, data: data})
	for _, r := range replaced {
		c.vc.Remove(spanKey{c, obj, r.off})
	}
	if s != nil && !c.vc.Add(spanKey{c, obj, s.off}, s, int64(len(s.data))+spanCost) {
		c.spans.drop(s) // larger than the budget
	}
}

// heldAt returns the bytes held at pos, in a pin, a span or a block, and
// where they start.
func (b *Blob) heldAt(pos int64) (int64, []byte, bool) {
	b.mu.Lock()
	for _, pn := range b.pins {
		if pn.off <= pos && pos < pn.off+int64(len(pn.data)) {
			b.mu.Unlock()
			return pn.off, pn.data, true
		}
	}
	b.mu.Unlock()
	if s := b.c.spans.at(b.key, pos); s != nil {
		b.c.vc.Get(spanKey{b.c, b.key, s.off}) // mark it used
		return s.off, s.data, true
	}
	i := pos / b.c.cfg.BlockSize
	if data, ok := b.c.get(blockKey{b.c, b.key, i}); ok && pos-i*b.c.cfg.BlockSize < int64(len(data)) {
		return i * b.c.cfg.BlockSize, data, true
	}
	return 0, nil, false
}

// held copies into q (the bytes at off; q may be nil to copy nothing)
// what pins, spans and blocks hold at either end of [off, off+n), and returns the
// range [lo, hi) left to read (empty when they hold it all).
func (b *Blob) held(q []byte, off, n int64) (lo, hi int64) {
	lo, hi = off, off+n
	for lo < hi {
		start, data, ok := b.heldAt(lo)
		if !ok {
			break
		}
		m := min(start+int64(len(data)), hi)
		if q != nil {
			copy(q[lo-off:m-off], data[lo-start:m-start])
		}
		lo = m
	}
	for lo < hi {
		start, data, ok := b.heldAt(hi - 1)
		if !ok {
			break
		}
		s := max(start, lo)
		if q != nil {
			copy(q[s-off:hi-off], data[s-start:hi-start])
		}
		hi = s
	}
	return lo, hi
}

// nextHeld returns the offset of the first byte at or after pos that a
// pin or a span holds, or the object's size.
func (b *Blob) nextHeld(pos int64) int64 {
	next := b.size
	b.mu.Lock()
	for _, pn := range b.pins {
		if pn.off >= pos {
			next = min(next, pn.off)
		}
	}
	b.mu.Unlock()
	if s := b.c.spans.next(b.key, pos); s >= 0 {
		next = min(next, s)
	}
	return next
}

// region returns the end of the most recent declared range that holds
// pos.
func (b *Blob) region(pos int64) (int64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.regions) - 1; i >= 0; i-- {
		if r := b.regions[i]; r[0] <= pos && pos < r[1] {
			return r[1], true
		}
	}
	return 0, false
}

// waitSpan waits for the fetch f of another reader to end; it fails only
// when ctx is done. The caller looks at what is held again: if f failed,
// it fetches the bytes itself.
func waitSpan(ctx context.Context, f *spanFlight) error {
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fetchSpan fetches the bytes [lo, hi) in one request, caches them as a
// span and returns them.
func (b *Blob) fetchSpan(ctx context.Context, lo, hi int64) (data []byte, err error) {
	f := &spanFlight{lo: lo, hi: hi, done: make(chan struct{})}
	b.c.spans.startFlight(b.key, f)
	return b.fetchFlight(ctx, f)
}

// fetchFlight makes the fetch of the registered flight f.
func (b *Blob) fetchFlight(ctx context.Context, f *spanFlight) (data []byte, err error) {
	c := b.c
	lo, hi := f.lo, f.hi
	// The flight ends after the span is cached, so that its waiters find
	// it; and it ends even when the source panics.
	defer c.spans.endFlight(b.key, f)
	rc, err := b.src.ReadRange(ctx, lo, hi-lo)
	local := isLocal(rc)
	if !local {
		b.stats.requests.Add(1)
	}
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data = make([]byte, hi-lo)
	m, err := io.ReadFull(rc, data)
	if !local {
		b.stats.bytes.Add(int64(m))
	}
	if err != nil {
		return nil, shortBody(b.info.Name(), lo+int64(m), err)
	}
	b.stats.misses.Add(1)
	c.addSpan(b.key, lo, data)
	return data, nil
}

// readSpan reads [lo, hi) into q (the bytes at off) with one exact fetch,
// for a read inside a declared range that ends at end: the fetch runs on
// to max(ra, BlockSize) bytes past lo, but not past end nor into bytes
// held after hi.
func (b *Blob) readSpan(ctx context.Context, q []byte, off, lo, hi, end, ra int64) error {
	cfg := b.c.cfg
	fe := max(hi, min(end, lo+max(ra, cfg.BlockSize), lo+cfg.MaxRequest))
	fe = max(hi, min(fe, b.nextHeld(hi)))
	data, err := b.fetchSpan(ctx, lo, fe)
	if err != nil {
		return err
	}
	copy(q[lo-off:hi-off], data)
	return nil
}
