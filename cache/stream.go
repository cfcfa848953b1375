package cache

import "context"

// Parallel readahead. A read that continues where the last one ended,
// once its readahead (which doubles on each such read, and is at least
// four times the read's size) reaches Config.PartSize, no longer waits for
// that readahead: the bytes up to twice the readahead past the read are
// fetched in the background, as parts of PartSize bytes, each one range
// request, at most Config.Streams at a time for the blob. Each later read
// of the sequence, and each part that ends, issues the parts that the
// reader's progress makes room for; a read waits only for the blocks it
// needs, which a part publishes one by one as they arrive. A read that
// does not continue the sequence resets it: no part is issued until the
// reads are sequential again, and the parts under way run to their ends
// (at most twice the readahead). A blob with Streams 1 fetches its
// readahead with the read, as every read with less than PartSize of
// readahead does.
//
// A part runs under the context of the read that issued it (or of the
// part whose end issued it, which ran under that read's), so cancelling
// it stops every part that read issued; a reader that waits for the
// blocks of a part whose context was cancelled, when its own is not,
// fetches them itself.
//
// The bound: the bytes of the parts in flight, over every blob of a
// Cache, are at most a quarter of its vfs.Cache's budget, and for one blob
// at most Streams parts, within twice its readahead (at most MaxReadahead)
// past the read: twice, so that Streams bounds the parts in flight while
// the reader waits for the oldest and the others are done. A part that
// would pass the bound is not issued, but for the part that holds a
// read's missing blocks, or starts where they end, when nothing is on its
// way there (the reader caught up with its parts): that one is always
// issued, as a read's own readahead always was, so that the parts a
// sequence makes, and its requests, do not depend on when the parts
// before them ended. A part's blocks, as they arrive, are counted in the
// budget as every block is.

// WaitParts waits until the parts of parallel readahead issued for the
// blob, and those their ends issued, have ended: each ends with the
// context of the read that issued it, at the latest. A blob closed after
// it (remote.Blob.Close) leaves no request behind, and the blocks the
// parts fetched are held, so that what a later read of the same bytes
// asks for does not depend on when the parts ended.
func (b *Blob) WaitParts() { b.partsWG.Wait() }

// stream issues the parts of a sequential read of blocks first..last,
// with readahead ra, that may fetch up to the byte at limit. It reports
// whether it did: false when parallel readahead is off, the readahead
// below PartSize, or nothing left to read ahead.
func (b *Blob) stream(ctx context.Context, first, last, ra, limit int64) bool {
	c := b.c
	cfg := c.cfg
	bs := cfg.BlockSize
	if cfg.Streams <= 1 || ra < cfg.PartSize {
		return false
	}
	end := min((limit/bs+1)*bs, b.size) // the parts end here at most
	hi := min((last+1)*bs, b.size)      // the read's blocks end here
	if hi >= end {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// The first part starts at the read's first block when none is on
	// its way, so that the read's missing blocks come with it.
	b.ahead = max(b.ahead, first*bs)
	b.aheadEnd = end
	b.issue(ctx, hi)
	return true
}

// issue issues the parts that fit between b.ahead and twice the
// readahead past hi, the end of the read's blocks. The caller holds b.mu.
func (b *Blob) issue(ctx context.Context, hi int64) {
	c := b.c
	cfg := c.cfg
	bs := cfg.BlockSize
	pos, end := b.ahead, b.aheadEnd
	target := min(end, hi+2*b.ra)
	for pos < target {
		caught := pos <= hi // the reader caught up with its parts
		if !caught && b.nparts >= cfg.Streams {
			break
		}
		pe := min(pos+cfg.PartSize, end)
		n := pe - pos
		c.mu.Lock()
		if !caught && c.parts+n > c.vc.Budget()/4 {
			c.mu.Unlock()
			break
		}
		runs := b.claim(pos/bs, (pe-1)/bs)
		if len(runs) > 0 {
			c.parts += n
		}
		c.mu.Unlock()
		pos = pe
		if len(runs) == 0 {
			continue // held or on its way already
		}
		b.nparts++
		b.partsWG.Add(1)
		go b.fetchPart(ctx, runs, n)
	}
	b.ahead = pos
}

// claim starts a flight for each block of first..last that is neither
// held nor on its way, and returns them as runs of adjacent blocks
// ([start, end] indexes). The caller holds c.mu.
func (b *Blob) claim(first, last int64) [][2]int64 {
	c := b.c
	var runs [][2]int64
	for i := first; i <= last; i++ {
		k := blockKey{c, b.key, i}
		if _, ok := c.vc.Peek(k); ok || c.inflight[k] != nil {
			continue
		}
		c.inflight[k] = &flight{done: make(chan struct{})}
		if n := len(runs); n > 0 && runs[n-1][1] == i-1 {
			runs[n-1][1] = i
		} else {
			runs = append(runs, [2]int64{i, i})
		}
	}
	return runs
}

// fetchPart fetches the runs of one part, n bytes counted against the
// bound of parts in flight. When a run fails, the flights of the runs
// after it end with its error.
func (b *Blob) fetchPart(ctx context.Context, runs [][2]int64, n int64) {
	c := b.c
	cfg := c.cfg
	bs := cfg.BlockSize
	var err error
	defer func() {
		c.mu.Lock()
		c.parts -= n
		c.mu.Unlock()
		b.mu.Lock()
		b.nparts--
		// A part that ended makes room for the next at once, rather
		// than at the next read, which may be waiting for an earlier
		// part: the sequence goes on while the readahead is a part or
		// more (a read out of sequence sets it to 0).
		if err == nil && b.ra >= cfg.PartSize && b.ahead > 0 {
			b.issue(ctx, min((b.next+bs-1)/bs*bs, b.size))
		}
		b.mu.Unlock()
		b.partsWG.Done()
	}()
	for _, r := range runs {
		if err == nil {
			err = b.fetchRun(ctx, r[0], r[1])
			continue
		}
		b.failFlights(r[0], r[1], err)
	}
}

// dropBehind removes from the cache the blocks that a sequential read of a
// large object has passed, those before the block holding off. An object
// larger than an eighth of the budget, read in sequence, would push the
// rest of the cache out and be evicted itself before a second read
// reached its start; one larger than twice MaxReadahead is more than its
// readahead holds, and the blocks it keeps are memory the process holds
// for a second read that a copy or a stream never makes. So its blocks
// leave as the read passes them, and the memory of a long sequential read
// stays that of its readahead.
func (b *Blob) dropBehind(off int64) {
	c := b.c
	if b.size <= dropBehindMin(c) {
		return
	}
	b.mu.Lock()
	from, to := b.dropped, off/c.cfg.BlockSize
	b.dropped = max(from, to)
	b.mu.Unlock()
	if to <= from {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := from; i < to; i++ {
		k := blockKey{c, b.key, i}
		if _, ok := c.vc.Peek(k); ok {
			c.vc.Remove(k)
		}
	}
}

// dropBehindMin is the size above which a sequential read of an object
// drops its blocks behind it: an eighth of the budget, and at most twice
// MaxReadahead (32 MiB by default).
func dropBehindMin(c *Cache) int64 {
	return min(c.vc.Budget()/8, 2*c.cfg.MaxReadahead)
}
