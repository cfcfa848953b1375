package inflate

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"sync"
	"sync/atomic"
)

// A markerInflater decodes DEFLATE blocks from any bit offset without the
// 32 KiB of output before it: its output is uint16 symbols, a byte value or,
// for a back-reference into the unknown window, markerBit | i, where i is
// the index of the byte in that window (0 is 32 KiB before the start).
//
// It accepts a subset of what the sequential decoder accepts (complete
// Huffman codes, a single one-bit or empty distance code, lengths within
// the RFC 1951 ranges), so its output is only ever trusted where the
// sequential decoder would have produced the same bytes.
type markerInflater struct {
	in    []byte
	pos   int // next byte of in to load into bits; may run past len(in)
	bits  uint64
	nbits uint

	// The output starts wide: symbols in out. Once the last 32 KiB of it
	// hold no marker, none can appear any more, and it goes on narrow, in
	// out8, whose first 32 KiB are that marker-free window.
	out    []uint16 // its length is the cap of the wide part
	n      int      // symbols in out
	out8   []byte   // its length is the cap of the narrow part
	n8     int      // bytes in out8, the window included
	narrow bool

	lit, dist, clen huffTable
	lens            [maxLit + maxDist]uint8

	// blocks lists where each complete non-final block ended.
	blocks []blockEnd
	stop   *atomic.Bool

	// finish, when set, ends run (errUntil) at the next block end;
	// handoff ends it (errNarrow) at the first block end where the
	// output is narrow. Both wait until the start is confirmed
	// (specMinOut bytes in two blocks or more).
	finish    *atomic.Bool
	minBlocks int // blocks decoded before finish is heeded
	handoff   bool
}

// A blockEnd is a block boundary found by the marker inflater.
type blockEnd struct {
	bit int64 // bit offset in the inflater's input
	out int   // output before it: the wide symbols, then the narrow bytes
}

// total returns the output so far, counted as in blockEnd.out.
func (f *markerInflater) total() int {
	if f.narrow {
		return f.n + f.n8 - windowSize
	}
	return f.n
}

// at returns the output from a to b (counted as in blockEnd.out): wide
// symbols, or bytes when the range is in the narrow part.
func (f *markerInflater) at(a, b int) ([]uint16, []byte) {
	if !f.narrow || b <= f.n {
		return f.out[a:b], nil
	}
	if a < f.n {
		panic("inflate: output range across the narrow switch")
	}
	d := windowSize - f.n
	return nil, f.out8[a+d : b+d]
}

// maybeNarrow switches to narrow output when the last 32 KiB of wide
// output hold no marker.
func (f *markerInflater) maybeNarrow() {
	if f.narrow || f.n < windowSize || len(f.out8) < 2*windowSize {
		return
	}
	w := f.out[f.n-windowSize : f.n]
	for _, v := range w {
		if v >= markerBit {
			return
		}
	}
	for i, v := range w {
		f.out8[i] = byte(v)
	}
	f.n8 = windowSize
	f.narrow = true
}

const (
	markerBit  = 0x8000
	windowSize = 32 << 10
	maxLit     = 286
	maxDist    = 30
)

var (
	errBad  = errors.New("invalid DEFLATE data")
	errFull = errors.New("output cap reached")
	errStop = errors.New("stopped")

	errUntil  = errors.New("segment end reached")
	errNarrow = errors.New("output narrow")
)

func (f *markerInflater) bitPos() int64 { return int64(f.pos)*8 - int64(f.nbits) }

// seek positions the reader at bit p of the input.
func (f *markerInflater) seek(p int64) {
	f.pos = int(p / 8)
	f.bits, f.nbits = 0, 0
	f.refill()
	f.bits >>= uint(p % 8)
	f.nbits -= uint(p % 8)
}

// refill loads at least 56 bits; past the end of the input it loads
// zeros, and bitPos tells the caller it ran over.
func (f *markerInflater) refill() {
	if f.pos+8 <= len(f.in) {
		f.bits |= binary.LittleEndian.Uint64(f.in[f.pos:]) << f.nbits
		f.pos += int(63-f.nbits) >> 3
		f.nbits |= 56
		return
	}
	for f.nbits <= 56 {
		if f.pos < len(f.in) {
			f.bits |= uint64(f.in[f.pos]) << f.nbits
		}
		f.pos++
		f.nbits += 8
	}
}

func (f *markerInflater) over() bool { return f.bitPos() > int64(len(f.in))*8 }

// take returns the next n (at most 32) bits; the caller made sure they
// are loaded.
func (f *markerInflater) take(n uint) uint32 {
	v := uint32(f.bits & (1<<n - 1))
	f.bits >>= n
	f.nbits -= n
	return v
}

// run decodes blocks from bit p until a final block header (not decoded;
// it returns nil), the output cap (errFull), an error (errBad), the stop
// flag (errStop), or what f.finish and f.handoff ask for (errUntil,
// errNarrow); f.blocks lists the complete blocks. found is called once,
// when the blocks reach specMinOut bytes.
func (f *markerInflater) run(p int64, found func()) error {
	fixedOnce.Do(initTables)
	f.seek(p)
	f.n, f.n8, f.narrow = 0, 0, false
	f.blocks = f.blocks[:0]
	for {
		if f.nbits < 3 {
			f.refill()
		}
		if f.bits&1 != 0 {
			return nil // a final block: left to the sequential decoder
		}
		var err error
		switch (f.bits >> 1) & 3 {
		case 0:
			f.take(3)
			err = f.stored()
		case 1:
			f.take(3)
			err = f.block(&fixedLit, &fixedDist)
		case 2:
			f.take(3)
			if err = f.header(); err == nil {
				err = f.block(&f.lit, &f.dist)
			}
		default:
			return errBad
		}
		if err == nil && f.over() {
			err = errBad
		}
		if err != nil {
			return err
		}
		f.blocks = append(f.blocks, blockEnd{bit: f.bitPos(), out: f.total()})
		f.maybeNarrow()
		confirmed := len(f.blocks) >= 2 && f.total() >= specMinOut
		if found != nil && confirmed {
			found()
			found = nil
		}
		switch {
		case !confirmed:
		case f.finish != nil && f.finish.Load() && len(f.blocks) >= f.minBlocks:
			return errUntil
		case f.handoff && f.narrow:
			return errNarrow
		}
		if f.stop != nil && f.stop.Load() {
			return errStop
		}
	}
}

func (f *markerInflater) stored() error {
	f.take(f.nbits & 7)
	p := int(f.bitPos() / 8)
	f.pos, f.bits, f.nbits = p, 0, 0
	if p+4 > len(f.in) {
		return errBad
	}
	n := int(binary.LittleEndian.Uint16(f.in[p:]))
	if binary.LittleEndian.Uint16(f.in[p+2:]) != ^uint16(n) {
		return errBad
	}
	p += 4
	if p+n > len(f.in) {
		return errBad
	}
	if f.narrow {
		if f.n8+n > len(f.out8) {
			return errFull
		}
		f.n8 += copy(f.out8[f.n8:], f.in[p:p+n])
	} else {
		if f.n+n > len(f.out) {
			return errFull
		}
		out := f.out[f.n : f.n+n]
		for i, b := range f.in[p : p+n] {
			out[i] = uint16(b)
		}
		f.n += n
	}
	f.pos = p + n
	return nil
}

var clenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// header reads a dynamic block's code lengths and builds its tables.
func (f *markerInflater) header() error {
	if f.nbits < 14 {
		f.refill()
	}
	nlit := int(f.take(5)) + 257
	ndist := int(f.take(5)) + 1
	nclen := int(f.take(4)) + 4
	if nlit > maxLit || ndist > maxDist {
		return errBad
	}
	var cl [19]uint8
	for i := range nclen {
		if f.nbits < 3 {
			f.refill()
		}
		cl[clenOrder[i]] = uint8(f.take(3))
	}
	if !f.clen.build(cl[:], false) {
		return errBad
	}
	lens := f.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if f.nbits < 32 {
			f.refill()
		}
		v, ok := f.clen.decode(f)
		if !ok {
			return errBad
		}
		if v < 16 {
			lens[i] = uint8(v)
			i++
			continue
		}
		var rep int
		var val uint8
		switch v {
		case 16:
			if i == 0 {
				return errBad
			}
			rep, val = 3+int(f.take(2)), lens[i-1]
		case 17:
			rep = 3 + int(f.take(3))
		default:
			rep = 11 + int(f.take(7))
		}
		if i+rep > len(lens) {
			return errBad
		}
		for j := range rep {
			lens[i+j] = val
		}
		i += rep
	}
	if f.over() || lens[256] == 0 {
		return errBad
	}
	if !f.lit.build(lens[:nlit], false) || !f.dist.build(lens[nlit:], true) {
		return errBad
	}
	return nil
}

var (
	lenBase  [29]uint16
	lenExtra [29]uint8
	distBase = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
		257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}

	fixedLit, fixedDist huffTable
	fixedOnce           sync.Once
)

func initTables() {
	base := uint16(3)
	for i := range 28 {
		e := uint8(0)
		if i >= 8 {
			e = uint8(i/4 - 1)
		}
		lenBase[i], lenExtra[i] = base, e
		base += 1 << e
	}
	lenBase[28], lenExtra[28] = 258, 0
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	fixedLit.build(l[:], false)
	var d [32]uint8
	for i := range d {
		d[i] = 5
	}
	fixedDist.build(d[:], false)
}

// block decodes a compressed block.
func (f *markerInflater) block(lit, dist *huffTable) error {
	var err error
	if f.narrow {
		f.n8, err = huffman(f, f.out8, f.n8, lit, dist, false)
	} else {
		f.n, err = huffman(f, f.out, f.n, lit, dist, true)
	}
	return err
}

// huffman decodes the symbols of a compressed block into out from n,
// and returns the new n; references before out[0] are markers when
// markers is set, else errors.
func huffman[T uint8 | uint16](f *markerInflater, out []T, n int, lit, dist *huffTable, markers bool) (int, error) {
	for {
		if f.nbits < 48 {
			f.refill()
		}
		v, ok := lit.decode(f)
		if !ok {
			return n, errBad
		}
		if v < 256 {
			if n >= len(out) {
				return n, errFull
			}
			out[n] = T(v)
			n++
			continue
		}
		if v == 256 {
			return n, nil
		}
		v -= 257
		if v >= 29 {
			return n, errBad
		}
		length := int(lenBase[v]) + int(f.take(uint(lenExtra[v])))
		if f.nbits < 32 {
			f.refill()
		}
		d, ok := dist.decode(f)
		if !ok || d >= 30 {
			return n, errBad
		}
		dd := int(distBase[d]) + int(f.take(uint(distExtra[d])))
		if n+length > len(out) {
			return n, errFull
		}
		start := n - dd
		switch {
		case start >= 0 && dd >= length:
			copy(out[n:n+length], out[start:start+length])
		case start >= 0:
			for i := range length {
				out[n+i] = out[start+i]
			}
		case -start > windowSize || !markers:
			return n, errBad
		default:
			for i := range length {
				if s := start + i; s < 0 {
					out[n+i] = T(markerBit | (windowSize + s))
				} else {
					out[n+i] = out[s]
				}
			}
		}
		n += length
	}
}

// A huffTable decodes one prefix code: a primary table indexed by the
// next pbits bits, and subtables for longer codes. An entry holds the
// code length in bits 0-3 (0: no such code), a link flag in bit 4 with
// the subtable's index bits in bits 8-11, and the symbol or the
// subtable's offset in bits 16-31.
type huffTable struct {
	t     []uint32
	pbits uint
}

const linkFlag = 1 << 4

func (h *huffTable) decode(f *markerInflater) (int, bool) {
	e := h.t[f.bits&(1<<h.pbits-1)]
	if e&linkFlag != 0 {
		sub := uint(e>>8) & 15
		e = h.t[int(e>>16)+int((f.bits>>h.pbits)&(1<<sub-1))]
	}
	n := uint(e & 15)
	if n == 0 {
		return 0, false
	}
	f.bits >>= n
	f.nbits -= n
	return int(e >> 16), true
}

// build makes the table for code lengths lens. It accepts complete codes
// only, and with single, an empty code or one code of one bit (zlib's
// distance codes).
func (h *huffTable) build(lens []uint8, single bool) bool {
	var count [16]int
	maxLen := 0
	for _, l := range lens {
		count[l]++
		maxLen = max(maxLen, int(l))
	}
	count[0] = 0
	left := 1
	for l := 1; l <= 15; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false
		}
	}
	if left != 0 && !(single && (maxLen == 0 || (maxLen == 1 && count[1] == 1))) {
		return false
	}
	h.pbits = uint(min(max(maxLen, 1), 10))
	h.t = append(h.t[:0], make([]uint32, 1<<h.pbits)...)
	var next [16]int
	code := 0
	for l := 1; l <= 15; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	sub := uint(max(maxLen-int(h.pbits), 0))
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		rev := int(bits.Reverse16(uint16(c)) >> (16 - l))
		e := uint32(sym)<<16 | uint32(l)
		if uint(l) <= h.pbits {
			for k := rev; k < 1<<h.pbits; k += 1 << l {
				h.t[k] = e
			}
			continue
		}
		p := rev & (1<<h.pbits - 1)
		if h.t[p]&linkFlag == 0 {
			h.t[p] = uint32(len(h.t))<<16 | uint32(sub)<<8 | linkFlag
			h.t = append(h.t, make([]uint32, 1<<sub)...)
		}
		off := int(h.t[p] >> 16)
		for k := rev >> h.pbits; k < 1<<sub; k += 1 << (uint(l) - h.pbits) {
			h.t[off+k] = e
		}
	}
	return true
}
