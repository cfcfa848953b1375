package hdf5adapter

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/pipefs/pipefs/vfs/driver"
)

// chunkKey keys a decoded chunk in the cache: the file (its env.Key, or
// the *file when nothing names its bytes), the dataset's object header
// and the chunk's grid coordinates.
type chunkKey struct {
	file  any
	addr  uint64
	coord string
}

func (d *dsInfo) cacheKey(g []int64) chunkKey {
	var owner any = d.f
	if d.f.key != "" {
		owner = d.f.key
	}
	b := make([]byte, 0, 8*len(g))
	for i, v := range g {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return chunkKey{owner, d.addr, string(b)}
}

// readChunk returns the decoded chunk at grid coordinates g, full size, in
// stored byte order; found is false when it is not stored (then data is
// nil: the chunk is fill).
func (d *dsInfo) readChunk(ctx context.Context, g []int64) (data []byte, found bool, err error) {
	if d.bad != nil {
		return nil, false, d.bad
	}
	key := d.cacheKey(g)
	if d.f.cache != nil {
		if v, ok := d.f.cache.Get(key); ok {
			b := v.([]byte)
			return b, b != nil, nil
		}
	}
	loc, err := d.locate(ctx, g)
	if err != nil {
		return nil, false, err
	}
	if !loc.found {
		if d.f.cache != nil {
			d.f.cache.Add(key, []byte(nil), 64)
		}
		return nil, false, nil
	}
	// The chunk's extent is exactly what the read needs: a remote input
	// fetches it byte for byte, not in aligned blocks. A hint; a failure
	// shows in the read.
	_ = driver.Prefetch(ctx, d.f.blob, int64(d.f.base+loc.addr), int64(loc.size))
	raw := make([]byte, loc.size)
	if _, err := readFull(ctx, d.f.blob, raw, int64(d.f.base+loc.addr)); err != nil {
		return nil, false, fmt.Errorf("chunk %v: %w", g, err)
	}
	if data, err = d.decodeStored(g, loc.mask, raw); err != nil {
		return nil, false, err
	}
	if d.f.cache != nil {
		d.f.cache.Add(key, data, int64(len(data))+64)
	}
	return data, true, nil
}

// locate finds the stored chunk at grid coordinates g in the chunk
// index and checks its extent against the file and the limits; loc.found
// is false when it is not stored.
func (d *dsInfo) locate(ctx context.Context, g []int64) (chunkLoc, error) {
	if d.bad != nil {
		return chunkLoc{}, d.bad
	}
	ix, err := d.chunkIndex(ctx)
	if err != nil {
		return chunkLoc{}, fmt.Errorf("chunk index: %w", err)
	}
	loc, err := ix.lookup(ctx, g)
	if err != nil {
		return chunkLoc{}, fmt.Errorf("chunk %v: %w", g, err)
	}
	if !loc.found {
		return loc, nil
	}
	if loc.size > uint64(d.f.lim.MaxChunk) || (len(d.filter) == 0 && loc.size != uint64(d.cb)) {
		if len(d.filter) == 0 {
			return chunkLoc{}, driver.Corruptf("chunk %v of %d bytes, want %d", g, loc.size, d.cb)
		}
		return chunkLoc{}, driver.Limitf("chunk %v of %d stored bytes, more than MaxChunk (%d)", g, loc.size, d.f.lim.MaxChunk)
	}
	if err := d.f.check(loc.addr, loc.size, fmt.Sprintf("chunk %v", g)); err != nil {
		return chunkLoc{}, err
	}
	return loc, nil
}

// decodeStored decodes the stored bytes raw of the chunk at g, whose
// filter mask is mask, to the chunk's d.cb bytes in stored byte order.
// The result may be raw itself; raw is not modified.
func (d *dsInfo) decodeStored(g []int64, mask uint32, raw []byte) ([]byte, error) {
	if len(d.filter) == 0 {
		return raw, nil
	}
	if d.edgeRaw && d.edge(g) {
		mask = ^uint32(0)
	}
	data, err := decodeChunk(d.filter, mask, raw, d.es, d.cb)
	if err != nil {
		return nil, fmt.Errorf("chunk %v: %w", g, err)
	}
	if int64(len(data)) != d.cb {
		return nil, driver.Corruptf("chunk %v decodes to %d bytes, want %d", g, len(data), d.cb)
	}
	return data, nil
}

// edge reports whether chunk g reaches past the dataset's dimensions.
func (d *dsInfo) edge(g []int64) bool {
	for i, v := range g {
		if (v+1)*d.chunk[i] > d.dims[i] {
			return true
		}
	}
	return false
}

// size is the byte size of the dataset's file.
func (d *dsInfo) size() int64 { return d.count * int64(d.es) }

// readAt reads the dataset's bytes (C order, stored byte order) at off.
// Variable-length data does not read.
func (d *dsInfo) readAt(ctx context.Context, p []byte, off int64) (int, error) {
	if d.dtype.Variable() && off < d.size() {
		return 0, d.variableErr()
	}
	return d.readRaw(ctx, p, off)
}

// readRaw is readAt for any type: variable-length data reads as its heap
// pointers. Every element reads as stored: fixed-length strings keep the
// bytes after a NUL and the trailing spaces of a space-padded string, and
// the gaps of a compound keep their bytes, as libhdf5 reads them with the
// file's own datatype as memory type.
func (d *dsInfo) readRaw(ctx context.Context, p []byte, off int64) (int, error) {
	return d.readStored(ctx, p, off)
}

// readStored reads the stored bytes of the dataset at off.
func (d *dsInfo) readStored(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("negative offset %d: %w", off, driver.ErrCorrupt)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	size := d.size()
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	if d.bad != nil {
		return 0, d.bad
	}
	want := len(p)
	if int64(want) > size-off {
		p = p[:size-off]
	}
	var n int
	var err error
	switch d.layout {
	case layoutCompact:
		n = copy(p, d.compact[off:size])
	case layoutContiguous:
		if d.contigAddr == undef {
			n = d.fillBytes(p, off)
			break
		}
		if err = d.f.check(d.contigAddr, uint64(size), "contiguous data"); err != nil {
			return 0, err
		}
		n, err = readFull(ctx, d.f.blob, p, int64(d.f.base+d.contigAddr)+off)
	case layoutChunked:
		n, err = d.readChunked(ctx, p, off)
	case layoutVirtual:
		n, err = d.readVirtual(ctx, p, off)
	}
	if err == nil && n < want {
		err = io.EOF
	}
	return n, err
}

// fillBytes fills p with the fill value as the bytes at off of a dataset
// that holds only fill.
func (d *dsInfo) fillBytes(p []byte, off int64) int {
	if d.fill == nil {
		clear(p)
		return len(p)
	}
	for i := range p {
		p[i] = d.fill[(off+int64(i))%int64(d.es)]
	}
	return len(p)
}

// readChunked serves a read of a chunked dataset chunk by chunk: each run
// of elements along the last dimension inside one chunk is one copy.
func (d *dsInfo) readChunked(ctx context.Context, p []byte, off int64) (int, error) {
	d.prefetch(ctx, p, off)
	es := int64(d.es)
	rank := len(d.dims)
	done := 0
	coord := make([]int64, rank)
	g := make([]int64, rank)
	// The chunks this read has taken, by their linear grid index.
	type taken struct {
		data  []byte
		found bool
	}
	local := map[int64]taken{}
	for done < len(p) {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		pos := off + int64(done)
		e, within := pos/es, pos%es
		// Unravel e.
		r := e
		for i := rank - 1; i >= 0; i-- {
			coord[i] = r % d.dims[i]
			r /= d.dims[i]
		}
		var lin int64
		for i := range g {
			g[i] = coord[i] / d.chunk[i]
			lin = lin*((d.dims[i]+d.chunk[i]-1)/d.chunk[i]) + g[i]
		}
		last := rank - 1
		w := coord[last] % d.chunk[last]
		run := min(d.chunk[last]-w, d.dims[last]-coord[last])
		// Byte range of the run.
		from := within
		to := min(run*es, from+int64(len(p)-done))
		c, ok := local[lin]
		if !ok {
			data, found, err := d.readChunk(ctx, g)
			if err != nil {
				return done, err
			}
			c = taken{data, found}
			local[lin] = c
		}
		dst := p[done : done+int(to-from)]
		if !c.found {
			d.fillBytes(dst, pos)
		} else {
			var ci int64
			for i := range rank {
				ci = ci*d.chunk[i] + coord[i]%d.chunk[i]
			}
			copy(dst, c.data[ci*es+from:])
		}
		done += len(dst)
	}
	return done, nil
}

// prefetch tells the input which stored chunks a read of len(p) bytes at
// off will read, when it touches more than one that is not cached: their
// extents, merged where they lie close together in the file, go to
// driver.Prefetch, so that a remote input fetches them in few requests
// rather than one per chunk. It is a hint: errors are left to the reads.
func (d *dsInfo) prefetch(ctx context.Context, p []byte, off int64) {
	const (
		maxRuns   = 4096
		maxChunks = 256
		gap       = 64 << 10 // merge extents less than this apart
	)
	es := int64(d.es)
	rank := len(d.dims)
	coord := make([]int64, rank)
	seen := map[int64]bool{}
	var todo [][]int64
	done := int64(0)
	for runs := 0; done < int64(len(p)) && runs < maxRuns && len(todo) < maxChunks; runs++ {
		e := (off + done) / es
		for i := rank - 1; i >= 0; i-- {
			coord[i] = e % d.dims[i]
			e /= d.dims[i]
		}
		g := make([]int64, rank)
		var lin int64
		for i := range g {
			g[i] = coord[i] / d.chunk[i]
			lin = lin*((d.dims[i]+d.chunk[i]-1)/d.chunk[i]) + g[i]
		}
		last := rank - 1
		run := min(d.chunk[last]-coord[last]%d.chunk[last], d.dims[last]-coord[last])
		done += run*es - (off+done)%es
		if seen[lin] {
			continue
		}
		seen[lin] = true
		if d.f.cache != nil {
			if _, ok := d.f.cache.Peek(d.cacheKey(g)); ok {
				continue
			}
		}
		todo = append(todo, g)
	}
	if len(todo) < 2 {
		return
	}
	ix, err := d.chunkIndex(ctx)
	if err != nil {
		return
	}
	var ext [][2]uint64
	for _, g := range todo {
		loc, err := ix.lookup(ctx, g)
		if err != nil || !loc.found || d.f.check(loc.addr, loc.size, "chunk") != nil {
			continue
		}
		ext = append(ext, [2]uint64{loc.addr, loc.addr + loc.size})
	}
	slices.SortFunc(ext, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	for i := 0; i < len(ext); {
		lo, hi := ext[i][0], ext[i][1]
		j := i + 1
		for ; j < len(ext) && ext[j][0] <= hi+gap; j++ {
			hi = max(hi, ext[j][1])
		}
		if driver.Prefetch(ctx, d.f.blob, int64(d.f.base+lo), int64(hi-lo)) != nil {
			return
		}
		i = j
	}
}
