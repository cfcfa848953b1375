package array

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/pipefs/pipefs/vfs/driver"
)

// An Extent is where the stored bytes of one chunk lie: Len bytes at Off
// in the object Object of the format's store ("" for a format whose
// chunks all lie in one object, as an HDF5 file's).
type Extent struct {
	Object   string
	Off, Len int64
	// Flags is the format's own word on the chunk (HDF5: the filters
	// skipped), handed back to DecodeChunk.
	Flags uint64
}

// An ExtentReader is a ChunkReader whose stored chunks are byte ranges of
// larger objects: the chunks of an HDF5 file, the inner chunks of the
// shards of a Zarr v3 array. Box reads locate every chunk they need
// first, then fetch the chunks that lie close together in one object with
// one request and decode each from those bytes (see the package doc). Its
// methods must be safe for concurrent use.
type ExtentReader interface {
	ChunkReader
	// ChunkExtent returns where the stored bytes of the chunk at coord
	// lie; found is false when no chunk is stored (it reads as fill).
	ChunkExtent(ctx context.Context, coord []int64) (e Extent, found bool, err error)
	// ReadExtent reads the e.Len bytes at e.Off of e.Object: a range
	// that holds neighbouring chunks, fetched with one request where the
	// store allows.
	ReadExtent(ctx context.Context, e Extent) ([]byte, error)
	// DecodeChunk decodes the chunk at coord, stored at e, from its stored
	// bytes, as ReadChunk returns it. stored is the chunk's own (the box
	// read copies the bytes of chunks whose extents overlap): DecodeChunk
	// may modify it, and its result may share its memory.
	DecodeChunk(ctx context.Context, coord []int64, e Extent, stored []byte) ([]byte, error)
}

const (
	// DefaultInFlight is the number of bytes a box read may hold beyond
	// the box when Array.InFlight is 0 (see the package doc).
	DefaultInFlight = 64 << 20
	// minRun is the size below which an ExtentReader's box read does not
	// split neighbouring chunks into more requests to keep more of them
	// in flight: a smaller request costs a round trip for little. It is
	// twice the block of the remote roots' block cache (256 KiB), so that
	// a run, cut at a chunk boundary, is not smaller than a block: the
	// cache reads ahead of a declared range smaller than that which
	// follows the last one, and a run's fetch would take its neighbour's
	// bytes or not, as the timing goes.
	minRun = 512 << 10
	// maxGap is the largest gap between two chunks of one object that one
	// request reads through rather than making two.
	maxGap = 64 << 10
	// planChunks is the most chunks a box read locates before it fetches
	// them, so that its plan stays small for boxes of many chunks.
	planChunks = 1 << 14
)

// budget returns the bytes a box read may hold beyond the box: InFlight,
// or DefaultInFlight when it is 0.
func (a *Array) budget() int64 {
	if a.InFlight > 0 {
		return a.InFlight
	}
	return DefaultInFlight
}

// inFlight returns the number of chunks (or runs of an ExtentReader) a box
// read has in flight at once: Concurrency (DefaultConcurrency when 0),
// but no more than fit in the budget at twice ChunkBytes each (a chunk's
// stored and decoded bytes), and at least one.
func (a *Array) inFlight() int {
	n := a.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	return int(max(1, min(int64(n), a.budget()/(2*max(a.ChunkBytes(), 1)))))
}

// boxChunk is one chunk that a box read touches.
type boxChunk struct {
	coord []int64
	part  boxPart
	ext   Extent
}

// readExtents is readBox for an ExtentReader: it locates up to planChunks
// chunks of the box at a time, with n lookups at once, copies fill into
// the parts of missing chunks, groups the others into runs (runs), and
// reads up to n runs at once (fewer when runs of minRun bytes do not fit
// in the budget), each with one ReadExtent, decoding its chunks one by
// one into out.
func (a *Array) readExtents(ctx context.Context, r ExtentReader, out []byte, ext, start, stop []int64, n int) error {
	var batch []boxChunk
	flush := func() error {
		err := a.readBatch(ctx, r, out, ext, batch, n)
		batch = batch[:0]
		return err
	}
	err := a.forEachChunkInBox(ctx, start, stop, func(coord []int64, part boxPart) error {
		batch = append(batch, boxChunk{
			coord: slices.Clone(coord),
			part:  boxPart{slices.Clone(part.lo), slices.Clone(part.dstLo), slices.Clone(part.ext)},
		})
		if len(batch) == planChunks {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	return err
}

// readBatch reads the chunks of batch into out.
func (a *Array) readBatch(ctx context.Context, r ExtentReader, out []byte, ext []int64, batch []boxChunk, n int) error {
	// n lookups at once, each of a part of the batch in order, the chunks
	// of one object (ChunkKey) together: chunks far apart are looked up
	// at once, so that the parts of the index they need (the nodes of a
	// B-tree, the shards and their indexes) are fetched together, and
	// chunks near one another one after the other, as they share them.
	order := byKey(r, batch)
	found := make([]bool, len(batch))
	g, gctx := errgroup.WithContext(ctx)
	for w := range n {
		g.Go(func() error {
			for _, i := range order[w*len(batch)/n : (w+1)*len(batch)/n] {
				if err := gctx.Err(); err != nil {
					return err
				}
				c := &batch[i]
				e, ok, err := r.ChunkExtent(gctx, c.coord)
				if err != nil {
					return err
				}
				switch {
				case !ok:
				case e.Off < 0 || e.Len < 0:
					return driver.Corruptf("chunk %v stored at [%d, +%d)", c.coord, e.Off, e.Len)
				case e.Len > a.Limits().MaxChunk:
					return driver.Limitf("chunk %v of %d stored bytes, more than MaxChunk (%d)", c.coord, e.Len, a.Limits().MaxChunk)
				}
				c.ext, found[i] = e, ok
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var stored []*boxChunk
	var fill []byte
	for i := range batch {
		c := &batch[i]
		if found[i] {
			stored = append(stored, c)
			continue
		}
		if fill == nil {
			fill = FillBytes(a.Fill, Prod(a.ChunkShape), a.DType.Size)
		}
		CopyBox(out, ext, c.part.dstLo, fill, a.ChunkShape, c.part.lo, c.part.ext, a.DType.Size)
	}
	// Runs are of at least minRun bytes, so fewer may fit in the budget
	// than chunks.
	n = int(max(1, min(int64(n), a.budget()/(2*minRun+2*a.ChunkBytes()))))
	runs := a.runs(stored, n)
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(n)
	for _, run := range runs {
		g.Go(func() error { return a.readRun(gctx, r, out, ext, run) })
	}
	return g.Wait()
}

// byKey returns the indexes of batch grouped by the chunks' store keys
// (the objects that hold them), the groups in the order of their first
// chunk, the chunks of a group in the order of the batch.
func byKey(r ChunkReader, batch []boxChunk) []int {
	group := map[string]int{}
	keys := make([]int, len(batch))
	for i, c := range batch {
		k, _, err := r.ChunkKey(c.coord)
		if err != nil {
			k = ""
		}
		g, ok := group[k]
		if !ok {
			g = len(group)
			group[k] = g
		}
		keys[i] = g
	}
	order := make([]int, len(batch))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(keys[x], keys[y]) })
	return order
}

// runs groups chunks into runs of neighbouring chunks, each read with
// one request. Chunks of one object, in the order of their offsets, each
// beginning at most maxGap after the end of those before, make a
// segment; a segment spanning m bytes is cut at chunk boundaries into
// max(1, floor(m / size)) runs of about equal spans: from size to twice
// size, so that no small run is left at the end, whose bytes a fetch of
// its neighbour could take or not, as the timing goes, when the bytes
// after them are held (an HDF5 B-tree node, a shard's index), nor one
// the block cache would read ahead of (see minRun). The size spreads
// the stored bytes over n runs, but is at least minRun (the caller keeps
// n low enough for that), and at most half the budget's share of a run in
// flight, less room for one stored and one decoded chunk; a run holds at
// least one chunk. The grouping depends
// only on the extents, so that a box read makes the same requests
// whatever the timing.
func (a *Array) runs(chunks []*boxChunk, n int) [][]*boxChunk {
	slices.SortStableFunc(chunks, func(x, y *boxChunk) int {
		return cmp.Or(cmp.Compare(x.ext.Object, y.ext.Object), cmp.Compare(x.ext.Off, y.ext.Off))
	})
	var total int64
	for _, c := range chunks {
		total += c.ext.Len
	}
	size := max(1, min(max((total+int64(n)-1)/int64(n), minRun), (a.budget()/int64(n)-2*a.ChunkBytes())/2))
	var runs [][]*boxChunk
	for i := 0; i < len(chunks); {
		// The segment chunks[i:j], spanning [lo, hi).
		lo, hi := chunks[i].ext.Off, chunks[i].ext.Off+chunks[i].ext.Len
		j := i + 1
		for ; j < len(chunks); j++ {
			e := chunks[j].ext
			if e.Object != chunks[i].ext.Object || e.Off > hi+maxGap {
				break
			}
			hi = max(hi, e.Off+e.Len)
		}
		// Run r of k ends with the first chunk that reaches r/k of the
		// span.
		k := max(1, (hi-lo)/size)
		bound := func(r int64) int64 { return lo + (hi-lo)/k*r + (hi-lo)%k*r/k }
		r, end := int64(1), int64(0)
		runs = append(runs, nil)
		for _, c := range chunks[i:j] {
			if end >= bound(r) {
				runs = append(runs, nil)
				for end >= bound(r) {
					r++
				}
			}
			runs[len(runs)-1] = append(runs[len(runs)-1], c)
			end = max(end, c.ext.Off+c.ext.Len)
		}
		i = j
	}
	return runs
}

// readRun reads the stored bytes of a run with one ReadExtent and decodes
// its chunks into out.
func (a *Array) readRun(ctx context.Context, r ExtentReader, out []byte, ext []int64, run []*boxChunk) error {
	first := run[0].ext
	lo, hi := first.Off, first.Off
	for _, c := range run {
		hi = max(hi, c.ext.Off+c.ext.Len)
	}
	b, err := r.ReadExtent(ctx, Extent{Object: first.Object, Off: lo, Len: hi - lo})
	if err != nil {
		return err
	}
	if int64(len(b)) != hi-lo {
		return driver.Corruptf("%d bytes read at [%d, +%d)", len(b), lo, hi-lo)
	}
	var end int64 // of the chunks before c
	for i, c := range run {
		e := c.ext
		stored := b[e.Off-lo : e.Off-lo+e.Len]
		// Chunks are in the order of their offsets: c shares bytes with
		// another when it begins before the end of those before it, or
		// the next begins before its end.
		if e.Off < end || (i+1 < len(run) && run[i+1].ext.Off < e.Off+e.Len) {
			stored = slices.Clone(stored)
		}
		end = max(end, e.Off+e.Len)
		data, err := r.DecodeChunk(ctx, c.coord, e, stored)
		if err != nil {
			return err
		}
		if int64(len(data)) != a.ChunkBytes() {
			return fmt.Errorf("chunk %v decodes to %d bytes, want %d: %w", c.coord, len(data), a.ChunkBytes(), driver.ErrCorrupt)
		}
		CopyBox(out, ext, c.part.dstLo, data, a.ChunkShape, c.part.lo, c.part.ext, a.DType.Size)
	}
	return nil
}
