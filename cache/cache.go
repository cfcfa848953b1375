package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// A Source fetches byte ranges of one version of an object.
type Source interface {
	// ReadRange returns a reader of the n bytes at off. The reader must
	// return exactly n bytes, or an error: a short body is an error
	// (io.ErrUnexpectedEOF), never data. The caller closes it.
	ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error)
}

// A LocalReader is a reader that a Source returns for bytes it already
// holds (an object a server sent whole, kept by the source): the cache
// counts neither a request nor bytes fetched for it, only the misses.
type LocalReader interface {
	io.ReadCloser
	Local()
}

// isLocal reports whether rc is a LocalReader.
func isLocal(rc io.ReadCloser) bool {
	_, ok := rc.(LocalReader)
	return ok
}

// Config sets the sizes of a Cache. Zero fields mean their defaults.
type Config struct {
	// BlockSize is the unit of caching and fetching. Default 256 KiB:
	// large enough that a small archive member and its local header come
	// in one block, small enough that a random read of a few KiB fetches
	// little more.
	BlockSize int64
	// Budget bounds the bytes held, for all objects together, when New
	// makes the cache a vfs.Cache of its own. Default 256 MiB. A cache
	// made by For shares the budget of its vfs.Cache instead.
	Budget int64
	// MaxReadahead bounds how far sequential readahead grows. Default
	// 16 MiB. Parallel readahead (Streams) issues parts up to twice the
	// readahead past a read.
	MaxReadahead int64
	// MaxRequest bounds the bytes of one range request. Default 64 MiB.
	MaxRequest int64
	// Streams bounds the parts of one blob's sequential readahead in
	// flight at once (see the package doc). Default 16: on a store
	// whose responses each carry 25 MB/s after 20 ms, a 64 MiB object
	// read whole takes 2.8 s with 1, 1.8 s with 2, 0.92 s with 4, 0.57
	// s with 8 and 0.40 s with 16 (BenchmarkSequential64MiB in
	// roots/httproot); a store serves that many ranges of one object
	// at once. 1 turns parallel readahead off: readahead is then
	// fetched with the read that needs it, one request at a time.
	Streams int
	// PartSize is the size of one part of parallel readahead, rounded
	// up to whole blocks and bounded by MaxRequest. Default 2 MiB: a
	// part takes four times longer to send at 25 MB/s than the 20 ms a
	// store takes to answer, and twice the MaxReadahead of 16 MiB holds
	// 16 of them; parts of 1 and 4 MiB were as fast, 8 MiB slower (too
	// few parts for 64 MiB).
	PartSize int64
}

// WithDefaults returns c with its zero fields set to their defaults, as
// New and Configure set them.
func (c Config) WithDefaults() Config {
	if c.BlockSize <= 0 {
		c.BlockSize = 256 << 10
	}
	if c.Budget <= 0 {
		c.Budget = 256 << 20
	}
	if c.MaxReadahead <= 0 {
		c.MaxReadahead = 16 << 20
	}
	if c.MaxRequest <= 0 {
		c.MaxRequest = 64 << 20
	}
	c.MaxRequest = max(c.MaxRequest, c.BlockSize)
	if c.Streams <= 0 {
		c.Streams = 16
	}
	if c.PartSize <= 0 {
		c.PartSize = 2 << 20
	}
	c.PartSize = min((c.PartSize+c.BlockSize-1)/c.BlockSize*c.BlockSize, c.MaxRequest/c.BlockSize*c.BlockSize)
	return c
}

// A Cache holds blocks of remote objects as entries of a vfs.Cache.
type Cache struct {
	cfg Config
	vc  *vfs.Cache
	n   atomic.Int64 // blocks held in vc

	mu       sync.Mutex
	inflight map[blockKey]*flight
	parts    int64 // bytes of readahead parts in flight, under mu

	spans spanTable // the exact extents declared with Blob.Prefetch
}

// blockKey keys a block in the vfs.Cache. It names the Cache too, so that
// two Caches with different block sizes over one vfs.Cache never mix
// their blocks.
type blockKey struct {
	c   *Cache
	obj string
	idx int64
}

// block is a cached block: an entry of the vfs.Cache that counts itself
// out of its Cache when evicted.
type block struct {
	c    *Cache
	data []byte
	held atomic.Bool // counted in c.n
}

// Evicted counts the block out of its cache's Len, once.
func (b *block) Evicted() {
	if b.held.CompareAndSwap(true, false) {
		b.c.n.Add(-1)
	}
}

// A flight is one block being fetched.
type flight struct {
	done chan struct{}
	data []byte
	err  error
}

// New returns a cache with the given sizes, holding its blocks in a
// vfs.Cache of its own bounded by cfg.Budget.
func New(cfg Config) *Cache {
	cfg = cfg.WithDefaults()
	return newCache(cfg, vfs.NewCache(cfg.Budget))
}

func newCache(cfg Config, vc *vfs.Cache) *Cache {
	return &Cache{cfg: cfg, vc: vc, inflight: map[blockKey]*flight{}}
}

// forKey keys the block cache among the resources of a vfs.Cache.
type forKey struct{}

// For returns the block cache of vc, made with the default sizes the first
// time: its blocks are entries of vc and share vc's byte budget with the
// rest of the derived data held there.
func For(vc *vfs.Cache) *Cache {
	if vc == nil {
		vc = vfs.DefaultCache()
	}
	return vc.Resource(forKey{}, func() any { return newCache(Config{}.WithDefaults(), vc) }).(*Cache)
}

// Configure makes the block cache of vc, the one For returns, with the
// sizes of cfg (zero fields mean their defaults; Budget is vc's own). It
// fails, changing nothing, when vc's block cache was made already with
// other sizes: call it before the first pipeline opened with vc reads.
func Configure(vc *vfs.Cache, cfg Config) error {
	cfg = cfg.WithDefaults()
	c := vc.Resource(forKey{}, func() any { return newCache(cfg, vc) }).(*Cache)
	got := c.cfg
	got.Budget = cfg.Budget
	if got != cfg {
		return fmt.Errorf("cache: the block cache of this vfs.Cache is in use already, with other sizes: %w", fs.ErrInvalid)
	}
	return nil
}

// Config returns the cache's sizes, defaults filled in; Budget is the
// current budget of the vfs.Cache the blocks are held in.
func (c *Cache) Config() Config {
	cfg := c.cfg
	cfg.Budget = c.vc.Budget()
	return cfg
}

// Len returns the number of cached blocks.
func (c *Cache) Len() int { return int(c.n.Load()) }

// get returns the cached block k.
func (c *Cache) get(k blockKey) ([]byte, bool) {
	v, ok := c.vc.Get(k)
	if !ok {
		return nil, false
	}
	return v.(*block).data, true
}

// add caches data as block k. The caller holds c.mu, under which every
// block is added, so that a block replaced is first removed and counted
// out.
func (c *Cache) add(k blockKey, data []byte) {
	if _, ok := c.vc.Peek(k); ok {
		c.vc.Remove(k)
	}
	// The block is counted before it is added, since adding it may evict
	// it; one the vfs.Cache refuses (larger than its budget) is counted
	// out again.
	b := &block{c: c, data: data}
	b.held.Store(true)
	c.n.Add(1)
	if !c.vc.Add(k, b, int64(len(data))) {
		b.Evicted()
	}
}

// Stats counts what a Blob's reads cost. The fields are updated atomically;
// read them with Snapshot.
type Stats struct {
	hits, misses, requests, bytes atomic.Int64
}

// Counts is a snapshot of Stats; it is driver.Counts, so that the FS can
// report the counts of its stages without importing this package.
type Counts = driver.Counts

// AddRequest counts a request made outside the cache's own fetches (an
// open, a resumed body).
func (s *Stats) AddRequest() { s.requests.Add(1) }

// AddBytes counts bytes fetched outside the cache's own block reads.
func (s *Stats) AddBytes(n int64) { s.bytes.Add(n) }

// Snapshot returns the current counts.
func (s *Stats) Snapshot() Counts {
	return Counts{Hits: s.hits.Load(), Misses: s.misses.Load(), Requests: s.requests.Load(), Bytes: s.bytes.Load()}
}

// Blob returns a driver.Blob that reads src through c. key must name the
// object and its version (canonical URL plus ETag or generation); info
// gives the name and the size. stats may be nil.
func (c *Cache) Blob(src Source, key string, info fs.FileInfo, stats *Stats) *Blob {
	if stats == nil {
		stats = new(Stats)
	}
	return &Blob{c: c, src: src, key: key, info: info, size: info.Size(), stats: stats}
}

// Blob is a cached view of one version of a remote object. It implements
// driver.Blob and driver.Prefetcher.
type Blob struct {
	c     *Cache
	src   Source
	key   string
	info  fs.FileInfo
	size  int64
	stats *Stats

	mu   sync.Mutex
	next int64 // where a sequential read would continue
	ra   int64 // current readahead in bytes
	pins []pin // bytes known without a fetch, such as the suffix read at open
	// regions are the last ranges given to Prefetch, [start, end).
	regions  [][2]int64
	pnext    int64 // where a sequence of declared ranges would continue
	pra      int64 // current readahead of declared ranges in bytes
	ahead    int64 // where the parts of a sequential read issued so far end
	aheadEnd int64 // where they must end (the object's, or a region's)
	nparts   int   // parts in flight
	partsWG  sync.WaitGroup
	dropped  int64 // blocks below this index a sequential read has dropped
}

type pin struct {
	off  int64
	data []byte
}

var (
	_ driver.Blob       = (*Blob)(nil)
	_ driver.Prefetcher = (*Blob)(nil)
)

// Stat returns the info given to Cache.Blob.
func (b *Blob) Stat() fs.FileInfo { return b.info }

// Stats returns the counters of the blob.
func (b *Blob) Stats() *Stats { return b.stats }

// Pin keeps data, the bytes at off, with the blob (outside the LRU): reads
// inside it need no fetch. Roots pin the suffix they read when opening an
// object, which holds a zip's end records and often its central directory.
// data must not be modified afterwards.
func (b *Blob) Pin(off int64, data []byte) {
	b.mu.Lock()
	b.pins = append(b.pins, pin{off, data})
	b.mu.Unlock()
}

// Put adds data, the bytes at off, to the cache: every whole block it
// covers (and the object's last, partial block when data reaches the end).
// Roots use it for bytes that arrived without being asked for, such as a
// whole object from a server that ignores Range. Each block is a copy, so
// that one cached block does not keep all of data alive and the budget
// bounds the memory held; data is not kept.
func (b *Blob) Put(off int64, data []byte) {
	bs := b.c.cfg.BlockSize
	end := min(off+int64(len(data)), b.size)
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	for i := (off + bs - 1) / bs; i*bs < end; i++ {
		lo, hi := i*bs, min((i+1)*bs, b.size)
		if hi > end {
			break
		}
		b.c.add(blockKey{b.c, b.key, i}, bytes.Clone(data[lo-off:hi-off]))
	}
}

// ReadAt reads len(p) bytes at off. The parts of the range that pinned
// bytes or spans hold (at either end) are copied from them, and only the
// rest is fetched: exactly, up to the end of the declared range (Prefetch)
// that holds it, or else in blocks.
func (b *Blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("cache: negative offset %d: %w", off, fs.ErrInvalid)
	}
	if off >= b.size {
		return 0, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := int(min(int64(len(p)), b.size-off))
	q := p[:n]
	ra := b.readahead(off, int64(n))
	if err := b.read(ctx, q, off, ra); err != nil {
		return 0, err
	}
	if ra >= b.c.cfg.PartSize {
		b.dropBehind(off)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// read fills q, the bytes at off, with readahead ra.
func (b *Blob) read(ctx context.Context, q []byte, off, ra int64) error {
	for {
		lo, hi := b.held(q, off, int64(len(q)))
		if lo >= hi {
			b.stats.hits.Add(1)
			return nil
		}
		if f := b.c.spans.flightOver(b.key, lo, hi); f != nil {
			if err := waitSpan(ctx, f); err != nil {
				return err
			}
			continue
		}
		if end, ok := b.region(lo); ok && hi-lo <= b.c.cfg.MaxRequest {
			return b.readSpan(ctx, q, off, lo, hi, end, ra)
		}
		return b.readBlocks(ctx, q, off, lo, hi, ra)
	}
}

// readBlocks reads [lo, hi) into q (the bytes at off) from blocks,
// fetching the missing ones and ra bytes of readahead.
func (b *Blob) readBlocks(ctx context.Context, q []byte, off, lo, hi, ra int64) error {
	bs := b.c.cfg.BlockSize
	first, last := lo/bs, (hi-1)/bs
	limit := b.regionEnd(lo)
	fetchLast := last
	if !b.stream(ctx, first, last, ra, limit) {
		fetchLast = max(min(last+ra/bs, (b.size-1)/bs, limit/bs), last)
	}
	blocks, err := b.blocks(ctx, first, last, fetchLast)
	if err != nil {
		return err
	}
	for i, blk := range blocks {
		start := (first + int64(i)) * bs
		from := max(lo, start) - start
		to := min(hi, start+int64(len(blk))) - start
		if from > int64(len(blk)) || to > int64(len(blk)) {
			return driver.Corruptf("cache: block %d of %s is short", first+int64(i), b.info.Name())
		}
		copy(q[max(start, lo)-off:], blk[from:to])
	}
	return nil
}

// regionEnd returns the last byte that readahead from a read at off may
// fetch: the end of the most recent prefetched region that holds off (so
// that reading an archive member does not fetch the next one), or of the
// object, and never into pinned bytes after off.
func (b *Blob) regionEnd(off int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	end := b.size - 1
	for i := len(b.regions) - 1; i >= 0; i-- {
		if r := b.regions[i]; r[0] <= off && off < r[1] {
			end = r[1] - 1
			break
		}
	}
	for _, pn := range b.pins {
		if pn.off > off {
			end = min(end, pn.off-1)
		}
	}
	return end
}

// readahead returns how many bytes past a read at off to fetch: nothing
// for random reads, doubling (up to MaxReadahead) while reads continue
// where the last one ended.
func (b *Blob) readahead(off, n int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if off == b.next && off > 0 {
		// A large read in a sequence says as much as several small
		// ones: the readahead is at least four reads of its size.
		b.ra = min(max(2*b.ra, b.c.cfg.BlockSize, 4*n), b.c.cfg.MaxReadahead)
	} else {
		b.ra = 0
		b.ahead = 0
		b.dropped = off / b.c.cfg.BlockSize
	}
	b.next = off + n
	return b.ra
}

// Prefetch fetches the bytes [off, off+n) that are neither pinned nor
// held, exactly and in one request, and remembers the range as a region
// that later reads inside it fetch exactly too and that sequential
// readahead does not run past. Archive readers call it with the ranges the
// format says they need (a central directory, a member and its local
// header, a chunk), so that each costs one request and no byte more.
//
// A range that ends in held bytes and misses at most a block before them
// is left to the reads inside it, which fetch that part exactly, in one
// request, if they need it. Two cases fetch more, to save requests: a
// range that ends less than 64 KiB before held bytes or the object's end
// is fetched up to them, and a range that starts where the last one ended
// (members read in order), when it is smaller than the readahead, is
// fetched with readahead, which doubles from BlockSize up to MaxReadahead
// each time such a sequence needs a fetch (and runs on to held bytes less
// than a readahead further). At most MaxReadahead bytes of the range are
// fetched at once; reads fetch the rest of a larger region as they reach
// it.
func (b *Blob) Prefetch(ctx context.Context, off, n int64) error {
	off = max(off, 0)
	n = min(n, b.size-off)
	if n <= 0 {
		return nil
	}
	cfg := b.c.cfg
	b.mu.Lock()
	if len(b.regions) >= 8 {
		b.regions = append(b.regions[:0], b.regions[1:]...)
	}
	b.regions = append(b.regions, [2]int64{off, off + n})
	seq := off > 0 && off == b.pnext
	if !seq {
		b.pra = 0
	}
	b.pnext = off + n
	b.mu.Unlock()
	n = min(n, cfg.MaxReadahead)
	for {
		lo, hi := b.held(nil, off, n)
		if lo >= hi {
			return nil
		}
		if f := b.c.spans.flightOver(b.key, lo, hi); f != nil {
			if err := waitSpan(ctx, f); err != nil {
				return err
			}
			continue
		}
		if hi < off+n && hi-lo <= cfg.BlockSize {
			// The range ends in held bytes and misses at most a block
			// before them, as the last bytes of an archive held by a
			// first read that began a little after them: a read that
			// needs the missing part fetches it whole, in the one
			// request this would make, and when the range was a guess
			// (where end records may be), nothing needs it.
			return nil
		}
		hi = min(hi, lo+cfg.MaxRequest)
		end, fill := hi, int64(gapFill)
		if seq {
			b.mu.Lock()
			// Only a range smaller than the readahead is read ahead:
			// a larger one (the data after its header) holds what
			// its reader needs for a while.
			if ra := min(max(2*b.pra, cfg.BlockSize), cfg.MaxReadahead); n < ra {
				b.pra = ra
				end = hi + ra
				// The next fetch of the sequence would take a gap
				// this small whole: take it now.
				fill = max(fill, ra)
			}
			b.mu.Unlock()
		}
		next := b.nextHeld(hi)
		if next-end < fill {
			end = next
		}
		end = max(hi, min(end, next, lo+cfg.MaxRequest))
		f := &spanFlight{lo: lo, hi: end, done: make(chan struct{})}
		if g := b.c.spans.claimFlight(b.key, f, lo, hi); g != nil {
			// Another caller's fetch began since the look above.
			if err := waitSpan(ctx, g); err != nil {
				return err
			}
			continue
		}
		if l, h := b.held(nil, lo, hi-lo); l >= h {
			b.c.spans.endFlight(b.key, f) // cached since the look above
			return nil
		}
		_, err := b.fetchFlight(ctx, f)
		return err
	}
}

// blocks returns blocks first..last, fetching the missing ones among
// first..fetchLast (the tail beyond last is readahead).
func (b *Blob) blocks(ctx context.Context, first, last, fetchLast int64) ([][]byte, error) {
	for {
		out, retry, err := b.tryBlocks(ctx, first, last, fetchLast)
		if !retry {
			return out, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

func (b *Blob) tryBlocks(ctx context.Context, first, last, fetchLast int64) (out [][]byte, retry bool, err error) {
	c := b.c
	out = make([][]byte, last-first+1)
	waits := map[int64]*flight{}
	mine := map[int64]*flight{} // the flights this call fetches
	var runs [][2]int64         // [start, end] block indexes this call fetches
	add := func(i int64) {
		f := &flight{done: make(chan struct{})}
		c.inflight[blockKey{c, b.key, i}] = f
		mine[i] = f
		if n := len(runs); n > 0 && runs[n-1][1] == i-1 && (i-runs[n-1][0]+1)*c.cfg.BlockSize <= c.cfg.MaxRequest {
			runs[n-1][1] = i
		} else {
			runs = append(runs, [2]int64{i, i})
		}
	}
	c.mu.Lock()
	for i := first; i <= last; i++ {
		k := blockKey{c, b.key, i}
		if data, ok := c.get(k); ok {
			out[i-first] = data
			b.stats.hits.Add(1)
		} else if f, ok := c.inflight[k]; ok {
			waits[i] = f
		} else {
			add(i)
		}
	}
	// Readahead starts only where the block after the read is missing,
	// and stops at the first block already cached or on its way: so a
	// sequential reader fetches a large run each time it reaches the end
	// of what it has, instead of one block per read.
	for i := last + 1; i <= fetchLast; i++ {
		k := blockKey{c, b.key, i}
		if _, ok := c.vc.Peek(k); ok || c.inflight[k] != nil {
			break
		}
		add(i)
	}
	c.mu.Unlock()

	// Fetch the runs in parallel; this goroutine takes the first.
	var wg sync.WaitGroup
	errs := make([]error, len(runs))
	for j := range runs {
		if j == 0 {
			continue
		}
		wg.Go(func() { errs[j] = b.fetchRun(ctx, runs[j][0], runs[j][1]) })
	}
	if len(runs) > 0 {
		errs[0] = b.fetchRun(ctx, runs[0][0], runs[0][1])
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, false, e
		}
	}
	// The blocks fetched are taken from their flights, not from the LRU,
	// which may have evicted them already (a read of more blocks than
	// the budget holds, or other readers' blocks arriving meanwhile).
	for i := first; i <= last; i++ {
		if f := mine[i]; f != nil {
			out[i-first] = f.data
		}
	}
	for i, f := range waits {
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
		if f.err != nil {
			if isContextErr(f.err) && ctx.Err() == nil {
				return nil, true, nil // the fetcher gave up, not us
			}
			return nil, false, f.err
		}
		out[i-first] = f.data
		b.stats.hits.Add(1)
	}
	return out, false, nil
}

// failFlights ends the flights of blocks first..last with err.
func (b *Blob) failFlights(first, last int64, err error) {
	c := b.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := first; i <= last; i++ {
		k := blockKey{c, b.key, i}
		f := c.inflight[k]
		delete(c.inflight, k)
		f.err = err
		close(f.done)
	}
}

// fetchRun fetches blocks first..last in one request and publishes each
// as it arrives, so that a reader waiting for the first blocks of a long
// run goes on before the run ends.
func (b *Blob) fetchRun(ctx context.Context, first, last int64) (err error) {
	c := b.c
	bs := c.cfg.BlockSize
	off := first * bs
	end := min((last+1)*bs, b.size)
	next := first // the first block not yet published
	defer func() {
		if next <= last && err == nil {
			// The source panicked: the flights still end, with an
			// error, so that their waiters do not wait forever, and
			// the panic goes on.
			err = fmt.Errorf("cache: fetching %s: the source panicked", b.info.Name())
		}
		b.failFlights(next, last, err)
	}()
	rc, err := b.src.ReadRange(ctx, off, end-off)
	local := isLocal(rc)
	if !local {
		b.stats.requests.Add(1)
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	for i := first; i <= last; i++ {
		blk := make([]byte, min(bs, b.size-i*bs))
		m, err := io.ReadFull(rc, blk)
		if !local {
			b.stats.bytes.Add(int64(m))
		}
		if err != nil {
			return shortBody(b.info.Name(), i*bs+int64(m), err)
		}
		b.stats.misses.Add(1)
		k := blockKey{c, b.key, i}
		c.mu.Lock()
		f := c.inflight[k]
		delete(c.inflight, k)
		f.data = blk
		c.add(k, blk)
		close(f.done)
		c.mu.Unlock()
		next = i + 1
	}
	return nil
}

// shortBody returns the error of a body that failed at off with err, as
// io.ReadFull reports it. A body that ends before the bytes asked for was
// cut short on its way (a connection dropped, a source that gave up): an
// I/O error, io.ErrUnexpectedEOF, that a new request may not meet, never
// corrupt data, since no byte it gave was wrong. Any other err is the
// body's own, kept as it is.
func shortBody(name string, off int64, err error) error {
	if err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	return fmt.Errorf("%s: short body at %d: %w", name, off, io.ErrUnexpectedEOF)
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
