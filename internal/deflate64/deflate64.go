// Package deflate64 decodes Deflate64 ("enhanced deflate", zip
// compression method 9), the variant of DEFLATE (RFC 1951) that PKZIP,
// 7-Zip and Windows Explorer write.
//
// Deflate64 differs from DEFLATE in three places: the window is 64 KiB
// instead of 32 KiB; length code 285 has 16 extra bits over a base of 3
// (lengths 3 to 65538) instead of meaning 258; and distance codes 30 and 31
// are used, with 14 extra bits over bases 32769 and 49153. Everything else
// (block types, the fixed and dynamic Huffman codes, stored blocks) is
// DEFLATE's.
//
// The decoder is a plain forward reader: [NewReader] wraps an io.Reader of
// compressed bytes and yields the output. Its memory is fixed (the 64 KiB
// window and three Huffman tables, about 450 KiB) whatever the input, and
// every step consumes input or produces output, so hostile input cannot
// make it allocate or spin. Malformed data gives a [CorruptInputError];
// compressed data that ends before the final block gives
// io.ErrUnexpectedEOF; other errors of the input are returned as they
// are. The data carries no checksum of its own: the container's (a zip
// member's CRC-32) is the caller's to check.
package deflate64

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// A CorruptInputError reports malformed Deflate64 data at the given
// offset of the compressed input.
type CorruptInputError struct {
	Offset int64
	What   string
}

func (e *CorruptInputError) Error() string {
	return fmt.Sprintf("deflate64: corrupt input at offset %d: %s", e.Offset, e.What)
}

const (
	windowSize = 1 << 16
	windowMask = windowSize - 1
)

// Decoder states between calls.
const (
	stateHeader  = iota // at a block header
	stateStored         // inside a stored block
	stateHuffman        // inside a Huffman block
	stateDone           // after the final block
)

// A Reader decodes Deflate64 data.
type Reader struct {
	r   io.ByteReader
	in  int64 // compressed bytes read
	err error // sticky

	bits  uint64 // bit buffer, least significant bit first
	nbits uint

	hist   [windowSize]byte // the last 64 KiB of output, a ring
	wpos   int              // next write position in hist
	total  int64            // bytes of output decoded
	unread int              // decoded bytes in hist not yet returned

	state   int
	final   bool
	stored  int // bytes left in a stored block
	lit     huffman
	dist    huffman
	clen    huffman // the code length code of a dynamic header
	copyLen int     // bytes left of a match being copied
	copyDst int     // its distance

	spacing int64            // between checkpoints; 0 for none
	nextCP  int64            // output offset of the next checkpoint wanted
	record  func(Checkpoint) // takes the checkpoints
}

// A Checkpoint is the state of a Reader at a block boundary: enough to
// resume decoding there, with [Resume], without the data before it.
type Checkpoint struct {
	In     int64  // compressed bytes consumed before this point
	Bits   uint64 // bits of those bytes not consumed yet, the next in the low bits
	NBits  uint8  // how many (fewer than 64)
	Out    int64  // output bytes before this point
	Window []byte // the last min(Out, 64 KiB) bytes of output
}

// Checkpoints asks f to call record with a checkpoint at the first block
// boundary at least spacing bytes of output past the previous one (or past
// the start). Each costs a copy of the 64 KiB window.
func (f *Reader) Checkpoints(spacing int64, record func(Checkpoint)) {
	f.spacing, f.record = max(spacing, 1), record
	f.nextCP = f.total + f.spacing
}

// Resume returns a reader that decodes from the checkpoint cp, reading the
// compressed data from offset cp.In on with r. If r is not an
// io.ByteReader, it is buffered.
func Resume(r io.Reader, cp Checkpoint) *Reader {
	f := NewReader(r)
	f.in = cp.In
	f.bits, f.nbits = cp.Bits, uint(cp.NBits)
	f.total = cp.Out
	w := cp.Window[max(len(cp.Window)-windowSize, 0):]
	copy(f.hist[:], w)
	f.wpos = len(w) & windowMask
	return f
}

// checkpoint records a checkpoint if one is due.
func (f *Reader) checkpoint() {
	if f.record == nil || f.total < f.nextCP {
		return
	}
	n := int(min(f.total, windowSize))
	w := make([]byte, n)
	start := (f.wpos - n) & windowMask
	k := copy(w, f.hist[start:])
	copy(w[k:], f.hist[:n-k])
	f.record(Checkpoint{In: f.in, Bits: f.bits, NBits: uint8(f.nbits), Out: f.total, Window: w})
	f.nextCP = f.total + f.spacing
}

// NewReader returns a reader of the Deflate64 data in r. If r is not an
// io.ByteReader, it is buffered.
func NewReader(r io.Reader) *Reader {
	br, ok := r.(io.ByteReader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &Reader{r: br}
}

// Read reads decoded bytes into p. It returns io.EOF after the final
// block.
func (f *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if f.unread > 0 {
			start := (f.wpos - f.unread) & windowMask
			end := start + f.unread
			if end > windowSize {
				end = windowSize
			}
			k := copy(p[n:], f.hist[start:end])
			f.unread -= k
			n += k
			continue
		}
		if f.err != nil {
			break
		}
		f.fill()
	}
	if n > 0 {
		return n, nil
	}
	return 0, f.err
}

// corrupt records a CorruptInputError.
func (f *Reader) corrupt(what string) {
	if f.err == nil {
		f.err = &CorruptInputError{Offset: f.in, What: what}
	}
}

// inputErr records an error of the input: the end of input inside the
// data is io.ErrUnexpectedEOF.
func (f *Reader) inputErr(err error) {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if f.err == nil {
		f.err = err
	}
}

// need makes n bits (at most 32) available; false, with f.err set, if the
// input ends first.
func (f *Reader) need(n uint) bool {
	for f.nbits < n {
		c, err := f.r.ReadByte()
		if err != nil {
			f.inputErr(err)
			return false
		}
		f.in++
		f.bits |= uint64(c) << f.nbits
		f.nbits += 8
	}
	return true
}

// take consumes n available bits.
func (f *Reader) take(n uint) int {
	v := int(f.bits & (1<<n - 1))
	f.bits >>= n
	f.nbits -= n
	return v
}

// bitsOf reads n bits; ok is false, with f.err set, at the end of input.
func (f *Reader) bitsOf(n uint) (int, bool) {
	if !f.need(n) {
		return 0, false
	}
	return f.take(n), true
}

// put appends one byte of output.
func (f *Reader) put(c byte) {
	f.hist[f.wpos] = c
	f.wpos = (f.wpos + 1) & windowMask
	f.unread++
	f.total++
}

// fill decodes until the window holds windowSize unread bytes, a block
// ends, or an error.
func (f *Reader) fill() {
	for f.unread < windowSize && f.err == nil {
		if f.copyLen > 0 {
			f.copyMatch()
			continue
		}
		switch f.state {
		case stateHeader:
			if !f.final {
				f.checkpoint()
			}
			f.header()
		case stateStored:
			f.copyStored()
		case stateHuffman:
			f.huffmanBlock()
		case stateDone:
			f.err = io.EOF
		}
	}
}

// copyMatch copies as much of the pending match as the window has room
// for, in runs of at most the distance (so that a run never reads bytes it
// writes) that stay inside the ring. A distance of exactly 64 KiB copies
// each slot onto itself.
func (f *Reader) copyMatch() {
	n := min(f.copyLen, windowSize-f.unread)
	f.unread += n
	f.total += int64(n)
	f.copyLen -= n
	for n > 0 {
		src := (f.wpos - f.copyDst) & windowMask
		k := min(n, f.copyDst, windowSize-src, windowSize-f.wpos)
		copy(f.hist[f.wpos:f.wpos+k], f.hist[src:src+k])
		f.wpos = (f.wpos + k) & windowMask
		n -= k
	}
}

// header reads a block header.
func (f *Reader) header() {
	if f.final {
		f.state = stateDone
		return
	}
	v, ok := f.bitsOf(3)
	if !ok {
		return
	}
	f.final = v&1 != 0
	switch v >> 1 {
	case 0:
		// Stored: the rest of the byte is padding, then LEN and NLEN.
		f.take(f.nbits % 8)
		hdr, ok := f.bitsOf(32)
		if !ok {
			return
		}
		n, nn := hdr&0xffff, hdr>>16
		if n != ^nn&0xffff {
			f.corrupt("stored block length does not match its complement")
			return
		}
		f.stored = n
		f.state = stateStored
	case 1:
		f.lit.fixedLit()
		f.dist.fixedDist()
		f.state = stateHuffman
	case 2:
		if f.dynamic() {
			f.state = stateHuffman
		}
	default:
		f.corrupt("reserved block type 3")
	}
}

// copyStored copies the bytes of a stored block: first those left in the
// bit buffer (whole bytes, since the block starts byte-aligned), then from
// the input.
func (f *Reader) copyStored() {
	for f.stored > 0 && f.unread < windowSize {
		if f.nbits >= 8 {
			f.put(byte(f.take(8)))
		} else {
			c, err := f.r.ReadByte()
			if err != nil {
				f.inputErr(err)
				return
			}
			f.in++
			f.put(c)
		}
		f.stored--
	}
	if f.stored == 0 {
		f.state = stateHeader
	}
}

// Length and distance tables of Deflate64.
var (
	lengthBase = [29]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
		35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 3}
	lengthExtra = [29]uint{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
		3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 16}
	distBase = [32]int{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
		257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577, 32769, 49153}
	distExtra = [32]uint{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
		7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14}
)

// huffmanBlock decodes symbols until the window is full, a match is
// pending, or the block ends.
func (f *Reader) huffmanBlock() {
	for f.unread < windowSize && f.copyLen == 0 {
		sym, ok := f.decode(&f.lit)
		if !ok {
			return
		}
		switch {
		case sym < 256:
			f.put(byte(sym))
			continue
		case sym == 256:
			f.state = stateHeader
			return
		case sym > 285:
			f.corrupt("invalid literal/length code")
			return
		}
		i := sym - 257
		extra, ok := f.bitsOf(lengthExtra[i])
		if !ok {
			return
		}
		length := lengthBase[i] + extra
		d, ok := f.decode(&f.dist)
		if !ok {
			return
		}
		dextra, ok := f.bitsOf(distExtra[d])
		if !ok {
			return
		}
		dist := distBase[d] + dextra
		if int64(dist) > f.total {
			f.corrupt("distance reaches before the start of the output")
			return
		}
		f.copyLen, f.copyDst = length, dist
	}
}

// decode reads one symbol of h.
func (f *Reader) decode(h *huffman) (int, bool) {
	if h.max == 0 {
		f.corrupt("symbol of an empty code")
		return 0, false
	}
	// Read as many of h.max bits as the input has: the last symbols of
	// the data may be shorter than the longest code.
	for f.nbits < h.max {
		c, err := f.r.ReadByte()
		if err != nil {
			if err != io.EOF {
				f.inputErr(err)
				return 0, false
			}
			break
		}
		f.in++
		f.bits |= uint64(c) << f.nbits
		f.nbits += 8
	}
	e := h.table[f.bits&(1<<h.max-1)]
	if n := uint(e >> 16); n == 0 || n > f.nbits {
		if f.nbits < h.max {
			f.inputErr(io.EOF) // the input ended inside the code
		} else {
			f.corrupt("invalid Huffman code")
		}
		return 0, false
	}
	n := uint(e >> 16)
	f.take(n)
	return int(e & 0xffff), true
}

// codeOrder is the order of the code length code lengths.
var codeOrder = [19]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamic reads the code tables of a dynamic Huffman block.
func (f *Reader) dynamic() bool {
	v, ok := f.bitsOf(14)
	if !ok {
		return false
	}
	nlit, ndist, nclen := v&31+257, v>>5&31+1, v>>10+4
	if nlit > 286 {
		f.corrupt("more than 286 literal/length codes")
		return false
	}
	var lens [286 + 32]uint8
	for i := range nclen {
		l, ok := f.bitsOf(3)
		if !ok {
			return false
		}
		lens[codeOrder[i]] = uint8(l)
	}
	clen := &f.clen
	if err := clen.build(lens[:19]); err != nil {
		f.corrupt("code length code: " + err.Error())
		return false
	}
	clear(lens[:19])
	for i := 0; i < nlit+ndist; {
		sym, ok := f.decode(clen)
		if !ok {
			return false
		}
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var val uint8
		switch sym {
		case 16:
			if i == 0 {
				f.corrupt("repeat of no previous length")
				return false
			}
			val = lens[i-1]
			r, ok := f.bitsOf(2)
			if !ok {
				return false
			}
			rep = 3 + r
		case 17:
			r, ok := f.bitsOf(3)
			if !ok {
				return false
			}
			rep = 3 + r
		default:
			r, ok := f.bitsOf(7)
			if !ok {
				return false
			}
			rep = 11 + r
		}
		if i+rep > nlit+ndist {
			f.corrupt("code lengths run past their count")
			return false
		}
		for range rep {
			lens[i] = val
			i++
		}
	}
	if lens[256] == 0 {
		f.corrupt("no end-of-block code")
		return false
	}
	if err := f.lit.build(lens[:nlit]); err != nil {
		f.corrupt("literal/length code: " + err.Error())
		return false
	}
	if err := f.dist.build(lens[nlit : nlit+ndist]); err != nil {
		f.corrupt("distance code: " + err.Error())
		return false
	}
	return true
}

// maxBits is the longest Huffman code of DEFLATE.
const maxBits = 15

// A huffman is a canonical Huffman code, decoded by one table lookup: the
// entry of the next max bits (least significant first) holds the code's
// length in its high 16 bits and its symbol in the low 16; a length of 0
// marks bits that start no code.
type huffman struct {
	max   uint
	table [1 << maxBits]uint32
}

var errOversubscribed = errors.New("over-subscribed")

// build makes the code of the given code lengths (0: unused). An
// incomplete code is accepted; its unused bit patterns decode as errors.
func (h *huffman) build(lens []uint8) error {
	var count [maxBits + 1]int
	maxLen := 0
	for _, l := range lens {
		count[l]++
		maxLen = max(maxLen, int(l))
	}
	count[0] = 0
	left := 1
	for l := 1; l <= maxBits; l++ {
		left <<= 1
		left -= count[l]
		if left < 0 {
			return errOversubscribed
		}
	}
	h.max = uint(maxLen)
	size := 1 << maxLen
	clear(h.table[:size])
	if maxLen == 0 {
		return nil
	}
	var next [maxBits + 2]int
	for l := 1; l <= maxBits; l++ {
		next[l+1] = (next[l] + count[l]) << 1
	}
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		code := next[l]
		next[l]++
		// Codes are sent most significant bit first; the table is
		// indexed by bits as they arrive.
		rev := 0
		for range l {
			rev = rev<<1 | code&1
			code >>= 1
		}
		e := uint32(l)<<16 | uint32(sym)
		for i := rev; i < size; i += 1 << l {
			h.table[i] = e
		}
	}
	return nil
}

// fixedLit sets h to the fixed literal/length code.
func (h *huffman) fixedLit() {
	var lens [288]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	_ = h.build(lens[:])
}

// fixedDist sets h to the fixed distance code: 32 codes of 5 bits, all of
// them used by Deflate64.
func (h *huffman) fixedDist() {
	var lens [32]uint8
	for i := range lens {
		lens[i] = 5
	}
	_ = h.build(lens[:])
}
