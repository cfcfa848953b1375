package hdf5adapter

import (
	"context"
	"encoding/binary"
	"math/bits"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A chunkLoc is where a chunk is stored.
type chunkLoc struct {
	addr  uint64
	size  uint64 // stored bytes
	mask  uint32 // filters skipped
	found bool
}

// A chunkIndex finds chunks by their grid coordinates (offset / chunk).
type chunkIndex interface {
	lookup(ctx context.Context, g []int64) (chunkLoc, error)
}

// csl is the width of the size of a filtered chunk in index entries.
func (d *dsInfo) csl() int {
	return min(8, 1+(bits.Len64(uint64(d.cb))-1+8)/8)
}

// chunkIndex returns the dataset's chunk index, set up on first use.
func (d *dsInfo) chunkIndex(ctx context.Context) (chunkIndex, error) {
	d.ixMu.Lock()
	defer d.ixMu.Unlock()
	if d.ix == nil {
		ix, err := d.openIndex(ctx)
		if err != nil {
			return nil, err
		}
		d.ix = ix
	}
	return d.ix, nil
}

func (d *dsInfo) openIndex(ctx context.Context) (chunkIndex, error) {
	if d.indexAddr == undef {
		return noChunks{}, nil
	}
	switch d.index {
	case idxBTree1:
		return &btree1Index{d: d}, nil
	case idxSingle:
		return singleIndex{d: d}, nil
	case idxImplicit:
		return implicitIndex{d: d}, nil
	case idxFixed:
		return d.openFixed(ctx)
	case idxExtArray:
		return d.openExtensible(ctx)
	case idxBTree2:
		return d.openBTree2(ctx)
	}
	return nil, driver.Corruptf("chunk index type %d", d.index)
}

type noChunks struct{}

func (noChunks) lookup(context.Context, []int64) (chunkLoc, error) { return chunkLoc{}, nil }

type singleIndex struct{ d *dsInfo }

func (s singleIndex) lookup(_ context.Context, g []int64) (chunkLoc, error) {
	for _, v := range g {
		if v != 0 {
			return chunkLoc{}, nil
		}
	}
	l := chunkLoc{addr: s.d.indexAddr, size: s.d.single.size, mask: s.d.single.mask, found: true}
	if l.size == undef {
		l.size = uint64(s.d.cb)
	}
	return l, nil
}

// linear returns the linear index of chunk g over the grid of the maximum
// dimensions (the fixed array, extensible array and implicit indexes). For
// an extensible array the unlimited dimension goes first.
func (d *dsInfo) linear(g []int64) (uint64, bool) {
	unl := -1
	if d.index == idxExtArray {
		for i, m := range d.maxd {
			if m < 0 {
				unl = i
				break
			}
		}
	}
	var idx uint64
	mul := uint64(1)
	for i := len(g) - 1; i >= 0; i-- {
		if i == unl {
			continue
		}
		m := d.dims[i]
		if i < len(d.maxd) && d.maxd[i] >= 0 {
			m = max(m, d.maxd[i])
		}
		n := uint64((m + d.chunk[i] - 1) / d.chunk[i])
		if uint64(g[i]) >= n {
			return 0, false
		}
		idx += uint64(g[i]) * mul
		hi, lo := bits.Mul64(mul, n)
		if hi != 0 {
			return 0, false
		}
		mul = lo
	}
	if unl >= 0 {
		hi, lo := bits.Mul64(uint64(g[unl]), mul)
		if hi != 0 || lo+idx < lo {
			return 0, false
		}
		idx += lo
	}
	return idx, true
}

type implicitIndex struct{ d *dsInfo }

func (x implicitIndex) lookup(_ context.Context, g []int64) (chunkLoc, error) {
	i, ok := x.d.linear(g)
	if !ok {
		return chunkLoc{}, nil
	}
	hi, off := bits.Mul64(i, uint64(x.d.cb))
	if hi != 0 || off+x.d.indexAddr < off {
		return chunkLoc{}, driver.Corruptf("implicit chunk %v past the address space", g)
	}
	return chunkLoc{addr: x.d.indexAddr + off, size: uint64(x.d.cb), found: true}, nil
}

// readEntry reads one entry of a fixed or extensible array, or a v2
// B-tree chunk record: the chunk's address, and when filtered its stored
// size and filter mask.
func (d *dsInfo) readEntry(c *cursor, filtered bool) chunkLoc {
	l := chunkLoc{addr: c.addr(), size: uint64(d.cb)}
	if filtered {
		l.size = c.uint(d.csl())
		l.mask = c.u32()
	}
	l.found = l.addr != undef
	return l
}

// page reads a checksummed structure (a data block, a page) of n bytes at
// addr, keeping it with the file's metadata.
func (f *file) page(ctx context.Context, addr, n uint64, sig, what string) ([]byte, error) {
	f.mu.Lock()
	b := f.blocks[addr]
	f.mu.Unlock()
	if b != nil && uint64(len(b)) == n {
		return b, nil
	}
	b, err := f.read(ctx, addr, n, what)
	if err != nil {
		return nil, err
	}
	if sig != "" && !hasSig(b, sig) {
		return nil, driver.Corruptf("%s at %#x has no %s signature", what, addr, sig)
	}
	if err := checkSum(b, len(b)-4, what); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.remember(int64(len(b)))
	f.blocks[addr] = b
	f.mu.Unlock()
	return b, nil
}

// cachedRead is read for metadata that lookups read again and again (the
// nodes of chunk B-trees): it keeps what it read with the file's metadata.
func (f *file) cachedRead(ctx context.Context, addr, n uint64, what string) ([]byte, error) {
	f.mu.Lock()
	b := f.blocks[addr]
	f.mu.Unlock()
	if b != nil && uint64(len(b)) >= n {
		return b[:n], nil
	}
	b, err := f.read(ctx, addr, n, what)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.remember(int64(len(b)))
	f.blocks[addr] = b
	f.mu.Unlock()
	return b, nil
}

// fixedIndex is a fixed array index (FAHD).
type fixedIndex struct {
	d        *dsInfo
	filtered bool
	esize    int
	pageBits int
	count    uint64
	dblk     uint64
}

func (d *dsInfo) openFixed(ctx context.Context) (chunkIndex, error) {
	f := d.f
	b, err := f.readBlock(ctx, d.indexAddr, uint64(4+1+1+1+1+f.l+f.o+4), "FAHD", "fixed array header")
	if err != nil {
		return nil, err
	}
	c := f.cursor(b, "fixed array header")
	c.skip(5)
	x := &fixedIndex{d: d, filtered: c.u8() == 1}
	x.esize = int(c.u8())
	x.pageBits = int(c.u8())
	x.count = c.length()
	x.dblk = c.addr()
	want := f.o
	if x.filtered {
		want += d.csl() + 4
	}
	if x.esize != want || x.pageBits > 32 || x.count > 1<<40 {
		return nil, driver.Corruptf("fixed array of %d-byte entries (want %d), %d page bits, %d entries", x.esize, want, x.pageBits, x.count)
	}
	return x, c.err
}

func (x *fixedIndex) lookup(ctx context.Context, g []int64) (chunkLoc, error) {
	i, ok := x.d.linear(g)
	if !ok || i >= x.count || x.dblk == undef {
		return chunkLoc{}, nil
	}
	f := x.d.f
	prefix := uint64(6 + f.o)
	per := uint64(1) << x.pageBits
	if x.count <= per {
		b, err := f.page(ctx, x.dblk, prefix+x.count*uint64(x.esize)+4, "FADB", "fixed array data block")
		if err != nil {
			return chunkLoc{}, err
		}
		c := f.cursor(b[prefix+i*uint64(x.esize):], "fixed array entry")
		return x.d.readEntry(c, x.filtered), c.err
	}
	pages := (x.count + per - 1) / per
	bm := (pages + 7) / 8
	head, err := f.page(ctx, x.dblk, prefix+bm+4, "FADB", "fixed array data block")
	if err != nil {
		return chunkLoc{}, err
	}
	p := i / per
	if head[prefix+p/8]&(0x80>>(p%8)) == 0 {
		return chunkLoc{}, nil
	}
	n := per
	if p == pages-1 {
		n = x.count - p*per
	}
	at := x.dblk + prefix + bm + 4 + p*(per*uint64(x.esize)+4)
	b, err := f.page(ctx, at, n*uint64(x.esize)+4, "", "fixed array page")
	if err != nil {
		return chunkLoc{}, err
	}
	c := f.cursor(b[(i-p*per)*uint64(x.esize):], "fixed array entry")
	return x.d.readEntry(c, x.filtered), c.err
}

// extIndex is an extensible array index (EAHD).
type extIndex struct {
	d         *dsInfo
	filtered  bool
	esize     int
	maxBits   int
	idxElems  uint64
	minElems  uint64 // D
	minPtrs   uint64 // M
	pageBits  int
	iblock    uint64
	iblockSBs int // super blocks whose data blocks the index block addresses
	nsb       int
}

func (d *dsInfo) openExtensible(ctx context.Context) (chunkIndex, error) {
	f := d.f
	b, err := f.readBlock(ctx, d.indexAddr, uint64(4+1+1+1+1+1+1+1+1+6*f.l+f.o+4), "EAHD", "extensible array header")
	if err != nil {
		return nil, err
	}
	c := f.cursor(b, "extensible array header")
	c.skip(5)
	x := &extIndex{d: d, filtered: c.u8() == 1}
	x.esize = int(c.u8())
	x.maxBits = int(c.u8())
	x.idxElems = uint64(c.u8())
	x.minElems = uint64(c.u8())
	x.minPtrs = uint64(c.u8())
	x.pageBits = int(c.u8())
	c.skip(6 * f.l)
	x.iblock = c.addr()
	want := f.o
	if x.filtered {
		want += d.csl() + 4
	}
	pow2 := func(v uint64) bool { return v != 0 && v&(v-1) == 0 }
	if x.esize != want || x.maxBits == 0 || x.maxBits > 64 || !pow2(x.minElems) || !pow2(x.minPtrs) || x.pageBits > 32 ||
		bits.Len64(x.minElems)-1 > x.maxBits {
		return nil, driver.Corruptf("extensible array of %d-byte entries (want %d), %d bits, %d minimum elements, %d minimum pointers",
			x.esize, want, x.maxBits, x.minElems, x.minPtrs)
	}
	x.nsb = 1 + x.maxBits - (bits.Len64(x.minElems) - 1)
	x.iblockSBs = 2 * (bits.Len64(x.minPtrs) - 1)
	return x, c.err
}

// sbBlocks and sbElems are the number of data blocks of super block u and
// their number of entries.
func (x *extIndex) sbBlocks(u int) uint64 { return 1 << (u / 2) }
func (x *extIndex) sbElems(u int) uint64  { return x.minElems << ((u + 1) / 2) }

func (x *extIndex) lookup(ctx context.Context, g []int64) (chunkLoc, error) {
	i, ok := x.d.linear(g)
	if !ok || x.iblock == undef {
		return chunkLoc{}, nil
	}
	f := x.d.f
	ndAddrs := 2 * (x.minPtrs - 1)
	nsAddrs := max(0, x.nsb-x.iblockSBs)
	ibSize := uint64(6+f.o) + x.idxElems*uint64(x.esize) + (ndAddrs+uint64(nsAddrs))*uint64(f.o) + 4
	ib, err := f.page(ctx, x.iblock, ibSize, "EAIB", "extensible array index block")
	if err != nil {
		return chunkLoc{}, err
	}
	if i < x.idxElems {
		c := f.cursor(ib[6+f.o+int(i)*x.esize:], "extensible array entry")
		return x.d.readEntry(c, x.filtered), c.err
	}
	j := i - x.idxElems
	u := bits.Len64(j/x.minElems+1) - 1
	if u >= x.nsb {
		return chunkLoc{}, nil
	}
	start := (uint64(1)<<u - 1) * x.minElems
	k := j - start
	n := x.sbElems(u)
	blk, elem := k/n, k%n
	var dblk uint64
	var pageBitmap []byte // of this data block, when paged
	per := uint64(1) << x.pageBits
	pages := (n + per - 1) / per
	paged := n > per
	ac := f.cursor(ib[6+f.o+int(x.idxElems)*x.esize:], "extensible array index block")
	if u < x.iblockSBs {
		slot := uint64(0)
		for v := range u {
			slot += x.sbBlocks(v)
		}
		slot += blk
		if slot >= ndAddrs {
			return chunkLoc{}, driver.Corruptf("extensible array data block %d of %d", slot, ndAddrs)
		}
		ac.skip(int(slot) * f.o)
		dblk = ac.addr()
	} else {
		ac.skip(int(ndAddrs)*f.o + (u-x.iblockSBs)*f.o)
		sb := ac.addr()
		if ac.err != nil {
			return chunkLoc{}, ac.err
		}
		if sb == undef {
			return chunkLoc{}, nil
		}
		nb := x.sbBlocks(u)
		offBytes := (x.maxBits + 7) / 8
		bm := uint64(0)
		if paged {
			bm = nb * ((pages + 7) / 8)
		}
		b, err := f.page(ctx, sb, uint64(6+f.o+offBytes)+bm+nb*uint64(f.o)+4, "EASB", "extensible array super block")
		if err != nil {
			return chunkLoc{}, err
		}
		c := f.cursor(b[6+f.o+offBytes:], "extensible array super block")
		bitmap := c.take(int(bm))
		c.skip(int(blk) * f.o)
		dblk = c.addr()
		if c.err != nil {
			return chunkLoc{}, c.err
		}
		if paged {
			pageBitmap = bitmap
		}
	}
	if ac.err != nil {
		return chunkLoc{}, ac.err
	}
	if dblk == undef {
		return chunkLoc{}, nil
	}
	prefix := uint64(6 + f.o + (x.maxBits+7)/8)
	if !paged {
		b, err := f.page(ctx, dblk, prefix+n*uint64(x.esize)+4, "EADB", "extensible array data block")
		if err != nil {
			return chunkLoc{}, err
		}
		c := f.cursor(b[prefix+elem*uint64(x.esize):], "extensible array entry")
		return x.d.readEntry(c, x.filtered), c.err
	}
	p := elem / per
	if pageBitmap != nil {
		bit := blk*pages + p
		if bit/8 >= uint64(len(pageBitmap)) || pageBitmap[bit/8]&(0x80>>(bit%8)) == 0 {
			return chunkLoc{}, nil
		}
	}
	if _, err := f.page(ctx, dblk, prefix+4, "EADB", "extensible array data block"); err != nil {
		return chunkLoc{}, err
	}
	at := dblk + prefix + 4 + p*(per*uint64(x.esize)+4)
	b, err := f.page(ctx, at, per*uint64(x.esize)+4, "", "extensible array page")
	if err != nil {
		return chunkLoc{}, err
	}
	c := f.cursor(b[(elem-p*per)*uint64(x.esize):], "extensible array entry")
	return x.d.readEntry(c, x.filtered), c.err
}

// btree1K is the K of the chunk B-trees that libhdf5 writes by default:
// a node holds up to 2K entries.
const btree1K = 32

// btree1Index finds chunks in a version 1 B-tree of type 1, descending
// from the root.
type btree1Index struct{ d *dsInfo }

func (x *btree1Index) lookup(ctx context.Context, g []int64) (chunkLoc, error) {
	d, f := x.d, x.d.f
	rank := len(d.chunk)
	want := make([]uint64, rank)
	for i := range g {
		want[i] = uint64(g[i] * d.chunk[i])
	}
	keySize := 8 + 8*(rank+1)
	hdr := 8 + 2*f.o
	addr := d.indexAddr
	seen := map[uint64]bool{}
	cmp := func(key []byte) int { // key vs want
		for i := range rank {
			k := binary.LittleEndian.Uint64(key[8+8*i:])
			if k != want[i] {
				if k < want[i] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	for level := -1; ; {
		if seen[addr] || len(seen) > 64 {
			return chunkLoc{}, driver.Corruptf("v1 B-tree node %#x reached twice", addr)
		}
		seen[addr] = true
		f.mu.Lock()
		_, held := f.blocks[addr]
		f.mu.Unlock()
		if !held {
			// Declare the node as libhdf5 sizes it by default (2K
			// entries, K 32), so that a remote file fetches it in
			// one exact request rather than in aligned blocks, which
			// would also bring in the chunks around it. A hint.
			_ = driver.Prefetch(ctx, f.blob, int64(f.base+addr), int64(hdr+2*btree1K*(keySize+f.o)+keySize))
		}
		b, err := f.cachedRead(ctx, addr, uint64(hdr), "v1 B-tree node")
		if err != nil {
			return chunkLoc{}, err
		}
		if !hasSig(b, "TREE") || b[4] != 1 {
			return chunkLoc{}, driver.Corruptf("v1 B-tree node at %#x is not a chunk node", addr)
		}
		lv := int(b[5])
		if level >= 0 && lv != level {
			return chunkLoc{}, driver.Corruptf("v1 B-tree node at %#x at level %d, its parent wants %d", addr, lv, level)
		}
		n := int(b[6]) | int(b[7])<<8
		b, err = f.cachedRead(ctx, addr, uint64(hdr)+uint64(n)*uint64(keySize+f.o)+uint64(keySize), "v1 B-tree node")
		if err != nil {
			return chunkLoc{}, err
		}
		// The last child whose key is <= want.
		at := -1
		for i := range n {
			key := b[hdr+i*(keySize+f.o):]
			if cmp(key) <= 0 {
				at = i
			} else {
				break
			}
		}
		if at < 0 {
			return chunkLoc{}, nil
		}
		e := b[hdr+at*(keySize+f.o):]
		child := widen(e[keySize : keySize+f.o])
		if lv == 0 {
			if cmp(e) != 0 {
				return chunkLoc{}, nil
			}
			return chunkLoc{addr: child, size: uint64(binary.LittleEndian.Uint32(e)), mask: binary.LittleEndian.Uint32(e[4:]), found: child != undef}, nil
		}
		addr, level = child, lv-1
	}
}

// btree2Index finds chunks in a version 2 B-tree of record type 10 or 11.
type btree2Index struct {
	d        *dsInfo
	t        *btree2
	root     uint64
	rootN    int
	depth    int
	filtered bool
}

func (d *dsInfo) openBTree2(ctx context.Context) (chunkIndex, error) {
	h, err := d.f.readBTree2(ctx, d.indexAddr)
	if err != nil {
		return nil, err
	}
	typ, recSize := h.t.typ, h.t.recSize
	x := &btree2Index{d: d, t: h.t, root: h.root, rootN: h.rootN, depth: h.depth, filtered: typ == 11}
	want := d.f.o + 8*len(d.chunk)
	if x.filtered {
		want += d.csl() + 4
	}
	if (typ != 10 && typ != 11) || recSize != want {
		return nil, driver.Corruptf("chunk v2 B-tree of type %d, %d-byte records (want %d)", typ, recSize, want)
	}
	return x, nil
}

func (x *btree2Index) lookup(ctx context.Context, g []int64) (chunkLoc, error) {
	f := x.d.f
	rank := len(x.d.chunk)
	off := f.o
	if x.filtered {
		off += x.d.csl() + 4
	}
	cmp := func(rec []byte) int {
		for i := range rank {
			k := int64(binary.LittleEndian.Uint64(rec[off+8*i:]))
			if k != g[i] {
				if k < g[i] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	addr, n := x.root, x.rootN
	for depth := x.depth; ; depth-- {
		if addr == undef || n == 0 || depth < 0 {
			return chunkLoc{}, nil
		}
		b, err := f.cachedRead(ctx, addr, x.t.nodeSize, "v2 B-tree node")
		if err != nil {
			return chunkLoc{}, err
		}
		sig := "BTLF"
		if depth > 0 {
			sig = "BTIN"
		}
		if !hasSig(b, sig) {
			return chunkLoc{}, driver.Corruptf("v2 B-tree node at %#x has no %s signature", addr, sig)
		}
		c := f.cursor(b, "v2 B-tree node")
		c.skip(6)
		recs := c.take(n * x.t.recSize)
		if c.err != nil {
			return chunkLoc{}, c.err
		}
		ptr := f.o + x.t.cw
		if depth > 1 {
			ptr += x.t.tw[depth-1]
		}
		used := 6 + n*x.t.recSize
		if depth > 0 {
			used += (n + 1) * ptr
		}
		if err := checkSum(b, used, "v2 B-tree node"); err != nil {
			return chunkLoc{}, err
		}
		lo, hi := 0, n
		for lo < hi {
			m := (lo + hi) / 2
			if cmp(recs[m*x.t.recSize:]) < 0 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		i := lo
		if i < n && cmp(recs[i*x.t.recSize:]) == 0 {
			rc := f.cursor(recs[i*x.t.recSize:], "chunk record")
			return x.d.readEntry(rc, x.filtered), rc.err
		}
		if depth == 0 {
			return chunkLoc{}, nil
		}
		c.skip(i * ptr)
		addr = c.addr()
		n = int(c.uint(x.t.cw))
		if c.err != nil {
			return chunkLoc{}, c.err
		}

	}
}
