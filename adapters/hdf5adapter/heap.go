package hdf5adapter

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A fractalHeap is a parsed fractal heap header (FRHP).
type fractalHeap struct {
	addr        uint64
	idLen       int
	checksummed bool // direct blocks carry a checksum
	maxManaged  uint64
	hugeTree    uint64
	width       int
	start       uint64 // starting block size
	maxDirect   uint64
	maxHeapBits int
	root        uint64
	rootRows    int
	maxDRows    int // rows of direct blocks
	offBytes    int // bytes of a block offset / heap ID offset
	lenBytes    int // bytes of a heap ID length
	filtered    bool
}

func (f *file) fractalHeap(ctx context.Context, addr uint64) (*fractalHeap, error) {
	b, err := f.readUpTo(ctx, addr, 256, "fractal heap header")
	if err != nil {
		return nil, err
	}
	if !hasSig(b, "FRHP") {
		return nil, driver.Corruptf("fractal heap at %#x has no FRHP signature", addr)
	}
	c := f.cursor(b, "fractal heap header")
	c.skip(5)
	h := &fractalHeap{addr: addr}
	h.idLen = int(c.u16())
	filterLen := int(c.u16())
	flags := c.u8()
	h.checksummed = flags&2 != 0
	h.maxManaged = uint64(c.u32())
	c.length()            // next huge id
	h.hugeTree = c.addr() // huge object B-tree
	c.length()            // free space
	c.addr()              // free-space manager
	c.skip(8 * f.l)       // managed, allocated, iterator, count, huge size/count, tiny size/count
	h.width = int(c.u16())
	h.start = c.length()
	h.maxDirect = c.length()
	h.maxHeapBits = int(c.u16())
	c.u16() // starting root rows
	h.root = c.addr()
	h.rootRows = int(c.u16())
	if filterLen > 0 {
		h.filtered = true
		c.length()
		c.u32()
		c.skip(filterLen)
	}
	if c.err != nil {
		return nil, c.err
	}
	if err := checkSum(b, c.p, "fractal heap header"); err != nil {
		return nil, err
	}
	if h.filtered {
		return nil, fmt.Errorf("%w: filtered fractal heap", errors.ErrUnsupported)
	}
	pow2 := func(v uint64) bool { return v != 0 && v&(v-1) == 0 }
	if h.width == 0 || h.width > 1<<16 || !pow2(h.start) || !pow2(h.maxDirect) || h.maxDirect < h.start ||
		h.maxHeapBits == 0 || h.maxHeapBits > 64 || h.maxDirect > 1<<32 {
		return nil, driver.Corruptf("fractal heap at %#x: doubling table width %d, block sizes %d to %d, %d bits", addr, h.width, h.start, h.maxDirect, h.maxHeapBits)
	}
	h.maxDRows = bits.Len64(h.maxDirect) - bits.Len64(h.start) + 2
	h.offBytes = (h.maxHeapBits + 7) / 8
	h.lenBytes = bytesFor(min(h.maxDirect, uint64(h.maxManaged)))
	if h.rootRows > 64 {
		return nil, driver.Corruptf("fractal heap with %d root rows", h.rootRows)
	}
	return h, nil
}

// rowSize returns the block size of row r.
func (h *fractalHeap) rowSize(r int) uint64 {
	if r <= 1 {
		return h.start
	}
	return h.start << (r - 1)
}

// heapObject returns the object of heap ID id.
func (f *file) heapObject(ctx context.Context, h *fractalHeap, id []byte) ([]byte, error) {
	if len(id) == 0 {
		return nil, driver.Corruptf("empty heap ID")
	}
	switch id[0] >> 4 & 3 {
	case 0: // managed
		c := f.cursor(id[1:], "heap ID")
		off := c.uint(h.offBytes)
		n := c.uint(h.lenBytes)
		if c.err != nil {
			return nil, c.err
		}
		return f.managed(ctx, h, off, n)
	case 1: // huge
		c := f.cursor(id[1:], "heap ID")
		if f.o+f.l <= len(id)-1 {
			a, n := c.addr(), c.length()
			if c.err != nil {
				return nil, c.err
			}
			return f.read(ctx, a, n, "huge heap object")
		}
		key := c.uint(min(len(id)-1, 8))
		var found []byte
		err := f.walkBTree2(ctx, h.hugeTree, func(rec []byte) error {
			rc := f.cursor(rec, "huge object record")
			a, n, k := rc.addr(), rc.length(), rc.length()
			if rc.err == nil && k == key && found == nil {
				var err error
				found, err = f.read(ctx, a, n, "huge heap object")
				return err
			}
			return rc.err
		})
		if err != nil {
			return nil, err
		}
		if found == nil {
			return nil, driver.Corruptf("huge heap object %d not found", key)
		}
		return found, nil
	case 2: // tiny
		n := int(id[0]&0x0f) + 1
		if n > len(id)-1 {
			return nil, driver.Corruptf("tiny heap object of %d bytes in a %d-byte ID", n, len(id))
		}
		return id[1 : 1+n], nil
	}
	return nil, driver.Corruptf("heap ID type %d", id[0]>>4&3)
}

// managed returns n bytes at heap offset off.
func (f *file) managed(ctx context.Context, h *fractalHeap, off, n uint64) ([]byte, error) {
	if h.root == undef {
		return nil, driver.Corruptf("fractal heap is empty")
	}
	blk, blkOff, rows := h.root, uint64(0), h.rootRows
	for depth := 0; ; depth++ {
		if depth > 64 {
			return nil, driver.Corruptf("fractal heap indirect blocks nested more than 64 deep")
		}
		if rows == 0 {
			return f.direct(ctx, h, blk, blkOff, h.start, off, n)
		}
		ib, err := f.indirect(ctx, h, blk, rows)
		if err != nil {
			return nil, err
		}
		if off < blkOff {
			return nil, driver.Corruptf("heap offset %d before its block at %d", off, blkOff)
		}
		rel := off - blkOff
		row := 0
		first := uint64(h.width) * h.start
		if rel >= first {
			row = bits.Len64(rel/first) - 1 + 1
		}
		if row >= rows {
			return nil, driver.Corruptf("heap offset %d past its indirect block", off)
		}
		rowStart := uint64(0)
		if row > 0 {
			rowStart = first << (row - 1)
		}
		size := h.rowSize(row)
		col := (rel - rowStart) / size
		if col >= uint64(h.width) {
			return nil, driver.Corruptf("heap offset %d: column %d", off, col)
		}
		slot := row*h.width + int(col)
		if slot >= len(ib) || ib[slot] == undef {
			return nil, driver.Corruptf("heap offset %d lies in an unallocated block", off)
		}
		blk = ib[slot]
		blkOff += rowStart + col*size
		if row < h.maxDRows {
			if off-blkOff+n > size {
				return nil, driver.Corruptf("heap object of %d bytes at %d crosses its block", n, off)
			}
			return f.direct(ctx, h, blk, blkOff, size, off, n)
		}
		// An indirect child of size bytes: its rows.
		rows = bits.Len64(size) - bits.Len64(h.start*uint64(h.width)) + 1
	}
}

// indirect reads the child addresses of an indirect block of rows rows.
func (f *file) indirect(ctx context.Context, h *fractalHeap, addr uint64, rows int) ([]uint64, error) {
	nd := min(rows, h.maxDRows) * h.width
	ni := max(0, rows-h.maxDRows) * h.width
	size := uint64(5+f.o+h.offBytes) + uint64(nd+ni)*uint64(f.o) + 4
	b, err := f.readBlock(ctx, addr, size, "FHIB", "fractal heap indirect block")
	if err != nil {
		return nil, err
	}
	c := f.cursor(b, "fractal heap indirect block")
	c.skip(5 + f.o + h.offBytes)
	out := make([]uint64, nd+ni)
	for i := range out {
		out[i] = c.addr()
		if out[i] == addr {
			return nil, driver.Corruptf("indirect block at %#x is its own child", addr)
		}
	}
	return out, c.err
}

// direct returns n bytes at heap offset off of the direct block of size
// bytes at addr, which starts at heap offset blkOff.
func (f *file) direct(ctx context.Context, h *fractalHeap, addr, blkOff, size, off, n uint64) ([]byte, error) {
	rel := off - blkOff
	f.mu.Lock()
	blk := f.blocks[addr]
	f.mu.Unlock()
	if blk == nil {
		b, err := f.read(ctx, addr, size, "fractal heap direct block")
		if err != nil {
			return nil, err
		}
		if !hasSig(b, "FHDB") {
			return nil, driver.Corruptf("direct block at %#x has no FHDB signature", addr)
		}
		if h.checksummed {
			at := 5 + f.o + h.offBytes
			if at+4 > len(b) {
				return nil, driver.Corruptf("direct block at %#x of %d bytes", addr, len(b))
			}
			want := leUint(b[at : at+4])
			z := append([]byte(nil), b...)
			clear(z[at : at+4])
			if got := lookup3(z); uint64(got) != want {
				return nil, driver.Corruptf("fractal heap direct block at %#x: checksum %#08x, stored %#08x", addr, got, want)
			}
		}
		blk = b
		f.mu.Lock()
		f.remember(int64(len(b)))
		f.blocks[addr] = b
		f.mu.Unlock()
	}
	if rel > uint64(len(blk)) || n > uint64(len(blk))-rel {
		return nil, driver.Corruptf("heap object of %d bytes at %d outside its direct block", n, off)
	}
	return blk[rel : rel+n], nil
}

// walkBTree2 calls fn for every record of the version 2 B-tree at addr,
// in order.
func (f *file) walkBTree2(ctx context.Context, addr uint64, fn func(rec []byte) error) error {
	if addr == undef {
		return nil
	}
	h, err := f.readBTree2(ctx, addr)
	if err != nil {
		return err
	}
	if h.total > uint64(f.lim.MaxEntries) {
		return driver.Limitf("v2 B-tree of %d records, more than MaxEntries (%d)", h.total, f.lim.MaxEntries)
	}
	h.t.seen = map[uint64]bool{}
	var count uint64
	err = h.t.node(ctx, h.root, h.rootN, h.depth, func(rec []byte) error {
		count++
		return fn(rec)
	})
	if err != nil {
		return err
	}
	if count != h.total && h.root != undef {
		return driver.Corruptf("v2 B-tree at %#x holds %d records, its header says %d", addr, count, h.total)
	}
	return nil
}

// A btree2Head is the header of a version 2 B-tree: the tree's shape
// and where its root is.
type btree2Head struct {
	t     *btree2
	root  uint64
	rootN int // records in the root
	depth int
	total uint64 // records in the tree
}

// readBTree2 reads and checks the header (BTHD) of the version 2 B-tree
// at addr.
func (f *file) readBTree2(ctx context.Context, addr uint64) (btree2Head, error) {
	b, err := f.readBlock(ctx, addr, uint64(4+2+4+2+2+1+1+f.o+2+f.l+4), "BTHD", "v2 B-tree header")
	if err != nil {
		return btree2Head{}, err
	}
	c := f.cursor(b, "v2 B-tree header")
	c.skip(5)
	typ := c.u8()
	nodeSize := uint64(c.u32())
	recSize := int(c.u16())
	h := btree2Head{depth: int(c.u16())}
	c.skip(2)
	h.root = c.addr()
	h.rootN = int(c.u16())
	h.total = c.length()
	if c.err != nil {
		return btree2Head{}, c.err
	}
	if nodeSize < 16 || nodeSize > 1<<20 || recSize == 0 || uint64(recSize) > nodeSize || h.depth > 32 {
		return btree2Head{}, driver.Corruptf("v2 B-tree at %#x: node size %d, record size %d, depth %d", addr, nodeSize, recSize, h.depth)
	}
	h.t = &btree2{f: f, typ: typ, nodeSize: nodeSize, recSize: recSize}
	h.t.widths(h.depth)
	return h, nil
}

type btree2 struct {
	f        *file
	typ      uint8
	nodeSize uint64
	recSize  int
	cw       int   // width of a child record count
	tw       []int // width of a child's total records, by depth
	seen     map[uint64]bool
}

func (t *btree2) widths(depth int) {
	maxLeaf := (t.nodeSize - 10) / uint64(t.recSize)
	t.cw = bytesFor(maxLeaf)
	t.tw = make([]int, depth+1)
	cum := maxLeaf
	t.tw[0] = bytesFor(cum)
	for d := 1; d <= depth; d++ {
		ptr := uint64(t.f.o + t.cw)
		if d > 1 {
			ptr += uint64(t.tw[d-1])
		}
		var mx uint64
		if t.nodeSize > 10+ptr {
			mx = (t.nodeSize - 10 - ptr) / (uint64(t.recSize) + ptr)
		}
		hi, lo := bits.Mul64(mx+1, cum)
		if hi != 0 || lo+mx < lo {
			cum = ^uint64(0)
		} else {
			cum = lo + mx
		}
		t.tw[d] = bytesFor(cum)
	}
}

func (t *btree2) node(ctx context.Context, addr uint64, n, depth int, fn func([]byte) error) error {
	if addr == undef || n == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.seen[addr] {
		return driver.Corruptf("v2 B-tree node %#x reached twice", addr)
	}
	t.seen[addr] = true
	b, err := t.f.read(ctx, addr, t.nodeSize, "v2 B-tree node")
	if err != nil {
		return err
	}
	sig := "BTLF"
	if depth > 0 {
		sig = "BTIN"
	}
	if !hasSig(b, sig) {
		return driver.Corruptf("v2 B-tree node at %#x has no %s signature", addr, sig)
	}
	c := t.f.cursor(b, "v2 B-tree node")
	c.skip(6)
	recs := c.take(n * t.recSize)
	type child struct {
		addr uint64
		n    int
	}
	var kids []child
	if depth > 0 {
		for range n + 1 {
			a := c.addr()
			k := int(c.uint(t.cw))
			if depth > 1 {
				c.uint(t.tw[depth-1])
			}
			kids = append(kids, child{a, k})
		}
	}
	if c.err != nil {
		return fmt.Errorf("v2 B-tree node at %#x of %d records: %w", addr, n, c.err)
	}
	if err := checkSum(b, c.p, "v2 B-tree node"); err != nil {
		return err
	}
	for i := 0; i <= n; i++ {
		if depth > 0 {
			if err := t.node(ctx, kids[i].addr, kids[i].n, depth-1, fn); err != nil {
				return err
			}
		}
		if i < n {
			if err := fn(recs[i*t.recSize : (i+1)*t.recSize]); err != nil {
				return err
			}
		}
	}
	return nil
}

// A globalCollection is a parsed global heap collection: its objects by
// index.
type globalCollection map[uint16][]byte

// globalObject returns object index of the global heap collection at
// addr.
func (f *file) globalObject(ctx context.Context, addr uint64, index uint32) ([]byte, error) {
	f.mu.Lock()
	col := f.gcols[addr]
	f.mu.Unlock()
	if col == nil {
		head, err := f.read(ctx, addr, uint64(8+f.l), "global heap collection")
		if err != nil {
			return nil, err
		}
		if !hasSig(head, "GCOL") {
			return nil, driver.Corruptf("global heap at %#x has no GCOL signature", addr)
		}
		size := f.cursor(head[8:], "global heap").length()
		b, err := f.read(ctx, addr, size, "global heap collection")
		if err != nil {
			return nil, err
		}
		col = globalCollection{}
		hdr := (8 + f.l + 7) &^ 7
		ohdr := (8 + f.l + 7) &^ 7
		c := f.cursor(b, "global heap collection")
		c.skip(hdr)
		for c.left() >= ohdr {
			idx := c.u16()
			c.skip(6)
			n := c.length()
			c.skip(ohdr - 8 - f.l)
			if idx == 0 || c.err != nil {
				break
			}
			if n > uint64(c.left()) {
				return nil, driver.Corruptf("global heap object %d of %d bytes past its collection", idx, n)
			}
			col[idx] = c.take(int(n))
			c.skip(min((int(n)+7)&^7-int(n), c.left()))
		}
		f.mu.Lock()
		f.remember(int64(len(b)))
		f.gcols[addr] = col
		f.mu.Unlock()
	}
	if index > 0xffff {
		return nil, driver.Corruptf("global heap object index %d", index)
	}
	obj, ok := col[uint16(index)]
	if !ok {
		return nil, driver.Corruptf("global heap object %d not in the collection at %#x", index, addr)
	}
	return obj, nil
}
