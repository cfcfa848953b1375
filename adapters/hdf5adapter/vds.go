package hdf5adapter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"
)

// vdsState is what reading a virtual dataset needs: where its mappings
// are stored (an object of the global heap), and the mappings once read.
type vdsState struct {
	heap  uint64
	index uint32

	mu   sync.Mutex
	done bool
	maps []*vdsMap
	err  error
}

// A vdsMap is one mapping of a virtual dataset: the elements of a
// selection of a source dataset, in C order, go to those of a selection
// of the virtual dataset, in C order.
type vdsMap struct {
	file, dataset string
	src, virt     selection

	once sync.Once
	segs []vdsSegment // by virtual offset
	err  error
}

// A vdsSegment copies n elements of the source from element src to the
// virtual dataset at element virt.
type vdsSegment struct {
	virt, src, n int64
}

// Selection types (H5S_sel_type).
const (
	selNone   = 0
	selPoints = 1
	selHyper  = 2
	selAll    = 3
)

// A selection is a dataspace selection as the virtual layout stores it:
// everything, nothing, or the union of blocks (a hyperslab).
type selection struct {
	kind   int
	r      int     // selHyper: the rank
	blocks []box   // selHyper, irregular: the blocks
	start  []int64 // selHyper, regular: start, stride, count and block per dimension
	stride []int64
	count  []int64
	block  []int64
}

// A box is the block of elements from lo to hi (inclusive) in each
// dimension.
type box struct{ lo, hi []int64 }

// maxVDSBlocks bounds the blocks of one stored selection, and the runs of
// elements that one mapping expands to.
const maxVDSBlocks = 1 << 20

// unlimited is H5S_UNLIMITED.
const unlimited = ^uint64(0)

// mappings reads the virtual dataset's mappings from the global heap
// (H5Olayout.c, the global heap block of the virtual layout), once: only
// a read that was cancelled is tried again.
func (d *dsInfo) mappings(ctx context.Context) ([]*vdsMap, error) {
	v := d.vds
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done {
		return v.maps, v.err
	}
	if v.heap == undef { // no mapping: every element is the fill value
		v.done = true
		return nil, nil
	}
	b, err := d.f.globalObject(ctx, v.heap, v.index)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		v.done, v.err = true, err
		return nil, err
	}
	v.maps, v.err = d.f.parseVDS(b, len(d.dims))
	if v.err != nil && !errors.Is(v.err, errors.ErrUnsupported) {
		v.err = fmt.Errorf("virtual dataset mappings: %w", v.err)
	}
	v.done = true
	return v.maps, v.err
}

// parseVDS parses the global heap block of a virtual layout: version 0,
// the number of mappings (a length), for each the source file and
// dataset names (NUL-terminated) and the source and virtual selections,
// then the Jenkins lookup3 checksum of what precedes it.
func (f *file) parseVDS(b []byte, rank int) ([]*vdsMap, error) {
	if len(b) < 5 {
		return nil, driver.Corruptf("virtual layout block of %d bytes", len(b))
	}
	body := b[:len(b)-4]
	if sum, stored := lookup3(body), binary.LittleEndian.Uint32(b[len(body):]); sum != stored {
		return nil, driver.Corruptf("virtual layout block: checksum %#08x, data sums to %#08x", stored, sum)
	}
	c := f.cursor(body, "virtual layout block")
	if v := c.u8(); v != 0 {
		return nil, driver.Corruptf("virtual layout block version %d", v)
	}
	n := c.length()
	if n > uint64(f.lim.MaxEntries) {
		return nil, driver.Limitf("virtual dataset of %d mappings, more than MaxEntries (%d)", n, f.lim.MaxEntries)
	}
	var maps []*vdsMap
	for range n {
		m := &vdsMap{file: cString(c), dataset: cString(c)}
		var err error
		if m.src, err = parseSelection(c); err != nil {
			return nil, fmt.Errorf("mapping of %s %s: source selection: %w", m.file, m.dataset, err)
		}
		if m.virt, err = parseSelection(c); err != nil {
			return nil, fmt.Errorf("mapping of %s %s: virtual selection: %w", m.file, m.dataset, err)
		}
		if m.virt.rank() >= 0 && m.virt.rank() != rank {
			return nil, driver.Corruptf("virtual selection of rank %d in a dataset of rank %d", m.virt.rank(), rank)
		}
		if c.err != nil {
			return nil, c.err
		}
		maps = append(maps, m)
	}
	if c.err != nil {
		return nil, c.err
	}
	if c.left() != 0 {
		return nil, driver.Corruptf("virtual layout block: %d bytes after the mappings", c.left())
	}
	return maps, nil
}

// cString reads a NUL-terminated string.
func cString(c *cursor) string {
	rest := c.b[min(c.p, len(c.b)):]
	i := bytes.IndexByte(rest, 0)
	if i < 0 || c.err != nil {
		c.take(len(rest) + 1) // truncated
		return ""
	}
	return string(c.take(i + 1)[:i])
}

// rank returns the rank of a hyperslab, -1 for the other selections.
func (s *selection) rank() int {
	if s.kind != selHyper {
		return -1
	}
	return s.r
}

// parseSelection reads a serialised selection (H5S_SELECT_DESERIALIZE):
// its type (4 bytes), then for none and all a version and 8 reserved
// bytes; for a hyperslab version 1 (a list of blocks, 4-byte
// coordinates), 2 (regular, 8-byte values) or 3 (regular or a list,
// values of 2, 4 or 8 bytes). Point selections are refused.
func parseSelection(c *cursor) (selection, error) {
	kind := int(c.u32())
	s := selection{kind: kind}
	switch kind {
	case selNone, selAll:
		c.skip(12) // version, reserved, length
		return s, c.err
	case selPoints:
		return s, fmt.Errorf("%w: a point selection (only hyperslab and all selections are read)", errors.ErrUnsupported)
	case selHyper:
	default:
		return s, driver.Corruptf("selection type %d", kind)
	}
	version := c.u32()
	var flags uint8
	enc := 4
	switch version {
	case 1:
		c.skip(8) // reserved, length
	case 2:
		flags = c.u8()
		c.skip(4) // length
		enc = 8
	case 3:
		flags = c.u8()
		enc = int(c.u8())
		if enc != 2 && enc != 4 && enc != 8 {
			return s, driver.Corruptf("hyperslab values of %d bytes", enc)
		}
	default:
		return s, driver.Corruptf("hyperslab selection version %d", version)
	}
	rank := int(c.u32())
	if rank < 1 || rank > maxRank {
		return s, driver.Corruptf("hyperslab selection of rank %d", rank)
	}
	s.r = rank
	val := func() (int64, error) {
		v := c.uint(enc)
		if c.err != nil {
			return 0, c.err
		}
		if v == unlimited>>(64-8*enc) {
			return 0, fmt.Errorf("%w: an unlimited selection (a virtual dataset that grows with its sources)", errors.ErrUnsupported)
		}
		if v > 1<<62 {
			return 0, driver.Corruptf("selection coordinate %d", v)
		}
		return int64(v), nil
	}
	if flags&1 != 0 { // regular
		if version == 1 {
			return s, driver.Corruptf("regular hyperslab in a version 1 selection")
		}
		for _, dst := range []*[]int64{&s.start, &s.stride, &s.count, &s.block} {
			*dst = make([]int64, rank)
		}
		for i := range rank {
			for _, dst := range []*[]int64{&s.start, &s.stride, &s.count, &s.block} {
				v, err := val()
				if err != nil {
					return s, err
				}
				(*dst)[i] = v
			}
			if s.count[i] > 1 && s.stride[i] < s.block[i] {
				return s, driver.Corruptf("hyperslab blocks of %d every %d overlap", s.block[i], s.stride[i])
			}
		}
		return s, nil
	}
	if version == 2 {
		return s, driver.Corruptf("irregular hyperslab in a version 2 selection")
	}
	nb, err := val()
	if err != nil {
		return s, err
	}
	if nb > maxVDSBlocks || nb*int64(2*rank*enc) > int64(c.left()) {
		return s, driver.Corruptf("hyperslab of %d blocks in %d bytes", nb, c.left())
	}
	s.blocks = make([]box, nb)
	for i := range s.blocks {
		b := box{make([]int64, rank), make([]int64, rank)}
		for _, dst := range [][]int64{b.lo, b.hi} {
			for k := range rank {
				if dst[k], err = val(); err != nil {
					return s, err
				}
			}
		}
		for k := range rank {
			if b.hi[k] < b.lo[k] {
				return s, driver.Corruptf("hyperslab block from %v to %v", b.lo, b.hi)
			}
		}
		s.blocks[i] = b
	}
	return s, nil
}

// A run is n consecutive elements from element off, in C order.
type run struct{ off, n int64 }

// runs returns the elements of s in a dataspace of shape dims, in C
// order, as runs of consecutive elements (adjacent runs merged). Blocks
// must lie inside dims.
func (s *selection) runs(dims []int64) ([]run, error) {
	total := int64(1)
	for _, d := range dims {
		total *= d
	}
	switch s.kind {
	case selNone:
		return nil, nil
	case selAll:
		if total == 0 {
			return nil, nil
		}
		return []run{{0, total}}, nil
	}
	if s.rank() != len(dims) {
		return nil, driver.Corruptf("selection of rank %d in a dataspace of rank %d", s.rank(), len(dims))
	}
	var out []run
	add := func(b box) error {
		for k := range dims {
			if b.hi[k] >= dims[k] {
				return driver.Corruptf("selection block from %v to %v outside the extent %v", b.lo, b.hi, dims)
			}
		}
		// The innermost dimensions the block covers whole, and the one
		// outside them, make each run.
		j := len(dims) - 1
		for j > 0 && b.lo[j] == 0 && b.hi[j] == dims[j]-1 {
			j--
		}
		stride := int64(1)
		for k := j + 1; k < len(dims); k++ {
			stride *= dims[k]
		}
		n := (b.hi[j] - b.lo[j] + 1) * stride
		idx := slices.Clone(b.lo[:j])
		for {
			off := int64(0)
			for k := range dims {
				c := b.lo[k]
				if k < j {
					c = idx[k]
				}
				off = off*dims[k] + c
			}
			if len(out) >= maxVDSBlocks {
				return driver.Limitf("virtual dataset mapping of more than %d runs of elements", maxVDSBlocks)
			}
			out = append(out, run{off, n})
			k := j - 1
			for ; k >= 0; k-- {
				if idx[k]++; idx[k] <= b.hi[k] {
					break
				}
				idx[k] = b.lo[k]
			}
			if k < 0 {
				return nil
			}
		}
	}
	if s.start != nil {
		if err := s.eachBlock(add); err != nil {
			return nil, err
		}
	} else {
		for _, b := range s.blocks {
			if err := add(b); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(out, func(a, b run) int {
		switch {
		case a.off < b.off:
			return -1
		case a.off > b.off:
			return 1
		}
		return 0
	})
	merged := out[:0]
	for _, r := range out {
		if k := len(merged) - 1; k >= 0 && r.off <= merged[k].off+merged[k].n {
			merged[k].n = max(merged[k].n, r.off+r.n-merged[k].off)
			continue
		}
		merged = append(merged, r)
	}
	return merged, nil
}

// eachBlock calls fn for every block of a regular hyperslab.
func (s *selection) eachBlock(fn func(box) error) error {
	rank := len(s.start)
	nblocks := int64(1)
	for _, c := range s.count {
		if c == 0 {
			return nil
		}
		if nblocks *= c; nblocks > maxVDSBlocks {
			return driver.Limitf("hyperslab of more than %d blocks", maxVDSBlocks)
		}
	}
	for _, b := range s.block {
		if b == 0 {
			return nil
		}
	}
	idx := make([]int64, rank)
	for {
		b := box{make([]int64, rank), make([]int64, rank)}
		for k := range rank {
			b.lo[k] = s.start[k] + idx[k]*s.stride[k]
			b.hi[k] = b.lo[k] + s.block[k] - 1
		}
		if err := fn(b); err != nil {
			return err
		}
		k := rank - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < s.count[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// zipRuns pairs the elements of the virtual runs with those of the
// source runs, in order: both must hold as many elements.
func zipRuns(virt, src []run) ([]vdsSegment, error) {
	var nv, ns int64
	for _, r := range virt {
		nv += r.n
	}
	for _, r := range src {
		ns += r.n
	}
	if nv != ns {
		return nil, driver.Corruptf("virtual selection of %d elements mapped from a source selection of %d", nv, ns)
	}
	var segs []vdsSegment
	i, j := 0, 0
	var vi, sj int64 // elements used of virt[i] and src[j]
	for i < len(virt) && j < len(src) {
		n := min(virt[i].n-vi, src[j].n-sj)
		segs = append(segs, vdsSegment{virt[i].off + vi, src[j].off + sj, n})
		vi += n
		sj += n
		if vi == virt[i].n {
			i, vi = i+1, 0
		}
		if sj == src[j].n {
			j, sj = j+1, 0
		}
	}
	return segs, nil
}
