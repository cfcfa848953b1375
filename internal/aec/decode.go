package aec

import (
	"math/bits"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Params are the coding parameters of a stream.
type Params struct {
	// BitsPerSample is the sample size n, 1 to 32.
	BitsPerSample int
	// BlockSize is J, the samples of a block: 8, 16, 32 or 64.
	BlockSize int
	// RSI is the blocks of a reference sample interval, 1 to 4096.
	RSI int
	// MSB writes samples of more than one byte most significant byte
	// first (libaec's AEC_DATA_MSB); otherwise least significant first.
	MSB bool
	// Preprocess undoes the unit-delay predictor and the mapping of
	// prediction errors (AEC_DATA_PREPROCESS): every interval starts with
	// a reference sample.
	Preprocess bool
}

// rosCode is the zero-block count that means "to the end of the segment
// (64 blocks) or of the interval" (CCSDS 121.0-B 3.4.3, ROS).
const rosCode = 5

// seMax is the largest second-extension code: pairs whose sum is at most
// 12 (libaec's SE_TABLE_SIZE).
const seMax = 90

// SampleBytes returns how many bytes a sample of n bits takes in the
// output: 1 up to 8 bits, 2 up to 16, else 4.
func SampleBytes(n int) int {
	switch {
	case n > 16:
		return 4
	case n > 8:
		return 2
	}
	return 1
}

func (p Params) check() error {
	switch {
	case p.BitsPerSample < 1 || p.BitsPerSample > 32:
		return driver.Corruptf("aec: %d bits per sample (1 to 32)", p.BitsPerSample)
	case p.BlockSize != 8 && p.BlockSize != 16 && p.BlockSize != 32 && p.BlockSize != 64:
		return driver.Corruptf("aec: block size %d (8, 16, 32 or 64)", p.BlockSize)
	case p.RSI < 1 || p.RSI > 4096:
		return driver.Corruptf("aec: reference sample interval of %d blocks (1 to 4096)", p.RSI)
	}
	return nil
}

// Decode decodes src into size bytes of samples.
func Decode(src []byte, p Params, size int) ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, driver.Corruptf("aec: output of %d bytes", size)
	}
	d := decoder{
		br:   bitReader{src: src},
		p:    p,
		sb:   SampleBytes(p.BitsPerSample),
		out:  make([]byte, size),
		xmax: uint32(1<<p.BitsPerSample - 1),
	}
	switch {
	case p.BitsPerSample > 16:
		d.idLen = 5
	case p.BitsPerSample > 8:
		d.idLen = 4
	default:
		d.idLen = 3
	}
	d.want = (size + d.sb - 1) / d.sb
	if err := d.run(); err != nil {
		return nil, err
	}
	return d.out, nil
}

type decoder struct {
	br    bitReader
	p     Params
	idLen uint
	sb    int // output bytes of a sample
	xmax  uint32
	out   []byte
	want  int // samples to decode
	n     int // samples decoded
	pos   int // samples decoded in the current interval
	last  uint32
	fs    []uint32 // the fundamental sequences of a split block
}

// errShort ends decoding when the output is full.
type errShort struct{}

func (errShort) Error() string { return "aec: output full" }

var errTruncated = driver.Corruptf("aec: stream ends before the data")

func (d *decoder) run() error {
	rsiSamples := d.p.RSI * d.p.BlockSize
	for d.n < d.want {
		if d.pos == rsiSamples {
			d.pos = 0
		}
		err := d.block()
		if err == (errShort{}) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// put emits one decoded value: a reference sample, a mapped prediction
// error or, without preprocessing, the sample itself.
func (d *decoder) put(v uint32) error {
	if v > d.xmax {
		return driver.Corruptf("aec: value %d does not fit %d bits", v, d.p.BitsPerSample)
	}
	if d.p.Preprocess && d.pos != 0 {
		v = d.unmap(v)
	}
	d.last = v
	d.pos++
	i := d.n * d.sb
	d.n++
	switch {
	case d.sb == 1:
		d.out[i] = byte(v)
	case d.p.MSB:
		for k := d.sb - 1; k >= 0; k-- {
			if i+k < len(d.out) {
				d.out[i+k] = byte(v)
			}
			v >>= 8
		}
	default:
		for k := 0; k < d.sb && i+k < len(d.out); k++ {
			d.out[i+k] = byte(v)
			v >>= 8
		}
	}
	if d.n == d.want {
		return errShort{}
	}
	return nil
}

// unmap undoes the mapping of CCSDS 121.0-B 4.3 for unsigned samples:
// the prediction is the previous sample, and m the mapped error.
func (d *decoder) unmap(m uint32) uint32 {
	x := d.last
	half := m>>1 + m&1
	theta := min(x, d.xmax-x)
	switch {
	case half <= theta && m&1 == 0:
		return x + m>>1
	case half <= theta:
		return x - half
	case x <= d.xmax-x:
		return m
	}
	return d.xmax - m
}

// block decodes one coded data set.
func (d *decoder) block() error {
	ref := d.p.Preprocess && d.pos == 0
	id, ok := d.br.bits(d.idLen)
	if !ok {
		return errTruncated
	}
	J := d.p.BlockSize
	first := 0
	if ref {
		first = 1
	}
	switch {
	case id == 0: // low entropy: one more bit chooses
		se, ok := d.br.bits(1)
		if !ok {
			return errTruncated
		}
		if err := d.reference(ref); err != nil {
			return err
		}
		if se == 1 {
			return d.secondExtension(first)
		}
		return d.zeroBlocks(ref)
	case id == 1<<d.idLen-1: // uncompressed
		for i := 0; i < J; i++ {
			v, ok := d.br.bits(uint(d.p.BitsPerSample))
			if !ok {
				return errTruncated
			}
			if err := d.put(v); err != nil {
				return err
			}
		}
		return nil
	}
	// split sample: k low bits raw, the rest as a fundamental sequence
	k := uint(id - 1)
	if err := d.reference(ref); err != nil {
		return err
	}
	d.fs = d.fs[:0]
	for i := first; i < J; i++ {
		fs, err := d.fundamental()
		if err != nil {
			return err
		}
		if uint64(fs)<<k > uint64(d.xmax) {
			return driver.Corruptf("aec: split sample of %d<<%d does not fit %d bits", fs, k, d.p.BitsPerSample)
		}
		d.fs = append(d.fs, uint32(fs))
	}
	for _, fs := range d.fs {
		low, ok := d.br.bits(k)
		if !ok {
			return errTruncated
		}
		if err := d.put(fs<<k | low); err != nil {
			return err
		}
	}
	return nil
}

// reference reads and emits the reference sample that starts an
// interval, if ref.
func (d *decoder) reference(ref bool) error {
	if !ref {
		return nil
	}
	v, ok := d.br.bits(uint(d.p.BitsPerSample))
	if !ok {
		return errTruncated
	}
	return d.put(v)
}

// zeroBlocks decodes a run of blocks of zero values.
func (d *decoder) zeroBlocks(ref bool) error {
	fs, err := d.fundamental()
	if err != nil {
		return err
	}
	J := d.p.BlockSize
	blocks := fs + 1
	used := d.pos / J // blocks of the interval already decoded
	switch {
	case blocks == rosCode:
		blocks = min(d.p.RSI-used, 64-used%64)
	case blocks > rosCode:
		blocks--
	}
	if blocks > d.p.RSI-used {
		return driver.Corruptf("aec: run of %d zero blocks, %d left in the interval", blocks, d.p.RSI-used)
	}
	n := blocks * J
	if ref {
		n--
	}
	for ; n > 0; n-- {
		if err := d.put(0); err != nil {
			return err
		}
	}
	return nil
}

// secondExtension decodes a block of pairs, each coded as one
// fundamental sequence; after a reference sample (first 1) only the
// second value of the first pair is coded.
func (d *decoder) secondExtension(first int) error {
	for i := first; i < d.p.BlockSize; {
		m, err := d.fundamental()
		if err != nil {
			return err
		}
		if m > seMax {
			return driver.Corruptf("aec: second-extension code %d (at most %d)", m, seMax)
		}
		// m = s(s+1)/2 + b where s = a + b
		s := (intSqrt(8*m+1) - 1) / 2
		b := m - s*(s+1)/2
		if i&1 == 0 {
			if err := d.put(uint32(s - b)); err != nil {
				return err
			}
			i++
		}
		if err := d.put(uint32(b)); err != nil {
			return err
		}
		i++
	}
	return nil
}

func intSqrt(x int) int {
	r := 0
	for (r+1)*(r+1) <= x {
		r++
	}
	return r
}

// fundamental reads a fundamental sequence code: the number of 0 bits
// before a 1.
func (d *decoder) fundamental() (int, error) {
	n := 0
	for {
		v, ok := d.br.zeros()
		n += v
		if ok {
			return n, nil
		}
		if !d.br.more() {
			return 0, errTruncated
		}
		if n > 1<<31 {
			return 0, driver.Corruptf("aec: fundamental sequence of %d zero bits", n)
		}
	}
}

// bitReader reads src most significant bit first.
type bitReader struct {
	src  []byte
	pos  int
	acc  uint64 // unread bits, at the top
	nacc uint
}

func (b *bitReader) refill() {
	for b.nacc <= 56 && b.pos < len(b.src) {
		b.acc |= uint64(b.src[b.pos]) << (56 - b.nacc)
		b.pos++
		b.nacc += 8
	}
}

func (b *bitReader) more() bool { return b.pos < len(b.src) }

// bits reads n bits (0 to 32).
func (b *bitReader) bits(n uint) (uint32, bool) {
	if n == 0 {
		return 0, true
	}
	if b.nacc < n {
		b.refill()
		if b.nacc < n {
			return 0, false
		}
	}
	v := uint32(b.acc >> (64 - n))
	b.acc <<= n
	b.nacc -= n
	return v, true
}

// zeros reads 0 bits up to and including a 1 bit: it returns their number
// and true, or the number it read and false when the buffer ran out
// first.
func (b *bitReader) zeros() (int, bool) {
	b.refill()
	lz := uint(bits.LeadingZeros64(b.acc))
	if lz >= b.nacc {
		n := b.nacc
		b.acc, b.nacc = 0, 0
		return int(n), false
	}
	b.acc <<= lz + 1
	b.nacc -= lz + 1
	return int(lz), true
}
