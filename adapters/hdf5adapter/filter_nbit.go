package hdf5adapter

import (
	"errors"

	"github.com/pipefs/pipefs/vfs/driver"
)

// packedBits reads a bit stream most significant bit first, the packing
// of the n-bit and scale-offset filters.
type packedBits struct {
	buf  []byte
	i    int  // current byte
	left uint // bits not yet read in buf[i], 1 to 8
}

func newPackedBits(b []byte) *packedBits { return &packedBits{buf: b, left: 8} }

var errPackedShort = errors.New("packed data ends early")

// bits returns the next n bits, n from 0 to 8.
func (r *packedBits) bits(n uint) (byte, error) {
	var v uint
	for n > 0 {
		if r.i >= len(r.buf) {
			return 0, errPackedShort
		}
		take := min(n, r.left)
		v = v<<take | uint(r.buf[r.i]>>(r.left-take))&(1<<take-1)
		r.left -= take
		n -= take
		if r.left == 0 {
			r.i++
			r.left = 8
		}
	}
	return byte(v), nil
}

// N-bit client data values: cd[0] their count, cd[1] nonzero when the
// type is at full precision (the data is stored as is), cd[2] elements in
// the chunk, then the type from cd[3]: a class code and the class's
// parameters, nested for arrays and compounds (libhdf5's H5Znbit.c).
const (
	nbitAtomic   = 1 // size, order (0 LE, 1 BE), precision, offset
	nbitArray    = 2 // size, then the base type's class and parameters
	nbitCompound = 3 // size, member count, per member: offset, class, parameters
	nbitNoop     = 4 // size: bytes stored as they are
)

// nbitMaxDepth bounds the nesting of array and compound types the
// parameters may describe, so that hostile parameters cannot exhaust the
// stack (libhdf5 stores at most 4096 values).
const nbitMaxDepth = 64

// nbitAtom is one integer or float type packed by the n-bit filter.
type nbitAtom struct {
	size, order, precision, offset uint32
}

func (p nbitAtom) check() error {
	if p.size == 0 || p.precision == 0 || uint64(p.precision)+uint64(p.offset) > 8*uint64(p.size) {
		return driver.Corruptf("nbit: precision %d at offset %d in a %d-byte type", p.precision, p.offset, p.size)
	}
	return nil
}

// nbitDecoder unpacks the elements of one chunk, walking the type
// parameters as H5Z__nbit_decompress does, including its quirk of
// restarting an array's base-type parameters after the array.
type nbitDecoder struct {
	cd    []uint32
	r     *packedBits
	depth int
}

// decodeNbit undoes filter 5, the n-bit filter: every integer and float of
// the chunk's elements keeps only its precision bits, packed one after
// the other most significant bit first; the other bits decode as zero.
func decodeNbit(f Filter, src []byte, _, limit int) ([]byte, error) {
	cd := f.Values
	if len(cd) < 5 {
		return nil, driver.Corruptf("nbit: %d parameters, need at least 5", len(cd))
	}
	if uint64(cd[0]) != uint64(len(cd)) {
		return nil, driver.Corruptf("nbit: parameter count %d, %d stored", cd[0], len(cd))
	}
	if cd[1] != 0 {
		return src, nil // full precision: stored as is
	}
	n, size := uint64(cd[2]), uint64(cd[4])
	if size == 0 {
		return nil, driver.Corruptf("nbit: element size 0")
	}
	if n*size > uint64(limit) {
		return nil, driver.Corruptf("nbit: %d elements of %d bytes, more than the chunk's %d bytes", n, size, limit)
	}
	out := make([]byte, n*size)
	d := &nbitDecoder{cd: cd, r: newPackedBits(src)}
	var err error
	switch cd[3] {
	case nbitAtomic:
		if len(cd) < 8 {
			return nil, driver.Corruptf("nbit: %d parameters for an atomic type, need 8", len(cd))
		}
		p := nbitAtom{size: cd[4], order: cd[5], precision: cd[6], offset: cd[7]}
		if err := p.check(); err != nil {
			return nil, err
		}
		for e := uint64(0); e < n && err == nil; e++ {
			err = d.atomic(out[e*size:(e+1)*size], p)
		}
	case nbitArray, nbitCompound:
		for e := uint64(0); e < n && err == nil; e++ {
			idx := 4
			elem := out[e*size : (e+1)*size]
			if cd[3] == nbitArray {
				err = d.array(elem, &idx)
			} else {
				err = d.compound(elem, &idx)
			}
		}
	default:
		return nil, driver.Corruptf("nbit: type class %d", cd[3])
	}
	if err != nil {
		if errors.Is(err, errPackedShort) {
			return nil, driver.Corruptf("nbit: %v", err)
		}
		return nil, err
	}
	return out, nil
}

// params returns the next k parameters at *idx and advances it.
func (d *nbitDecoder) params(idx *int, k int) ([]uint32, error) {
	if *idx < 0 || k > len(d.cd)-*idx {
		return nil, driver.Corruptf("nbit: parameters end inside the type they describe")
	}
	p := d.cd[*idx : *idx+k]
	*idx += k
	return p, nil
}

// atomic unpacks one integer or float into dst (p.size bytes): the field
// of p.precision bits at bit p.offset, read from its most significant
// byte down as H5Z__nbit_decompress_one_atomic does.
func (d *nbitDecoder) atomic(dst []byte, p nbitAtom) error {
	if uint64(len(dst)) < uint64(p.size) {
		return driver.Corruptf("nbit: %d-byte type in %d bytes", p.size, len(dst))
	}
	lo, hi := p.offset, p.offset+p.precision // field bits [lo, hi)
	for s := (hi - 1) / 8; ; s-- {           // byte s by significance
		bl, bh := max(lo, 8*s)-8*s, min(hi, 8*s+8)-8*s
		v, err := d.r.bits(uint(bh - bl))
		if err != nil {
			return err
		}
		k := s // memory index
		if p.order != 0 {
			k = p.size - 1 - s
		}
		dst[k] = v << bl
		if s == lo/8 {
			return nil
		}
	}
}

// noop copies size bytes of the stream into dst, for types the n-bit
// filter does not pack (strings, opaque, enums, ...).
func (d *nbitDecoder) noop(dst []byte, size uint32) error {
	if uint64(len(dst)) < uint64(size) {
		return driver.Corruptf("nbit: %d-byte member in %d bytes", size, len(dst))
	}
	for i := range dst[:size] {
		v, err := d.r.bits(8)
		if err != nil {
			return err
		}
		dst[i] = v
	}
	return nil
}

func (d *nbitDecoder) enter() error {
	d.depth++
	if d.depth > nbitMaxDepth {
		return driver.Corruptf("nbit: types nested more than %d deep", nbitMaxDepth)
	}
	return nil
}

// array unpacks one array element into dst (H5Z__nbit_decompress_one_array).
func (d *nbitDecoder) array(dst []byte, idx *int) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	h, err := d.params(idx, 2)
	if err != nil {
		return err
	}
	total, class := h[0], h[1]
	if uint64(total) > uint64(len(dst)) {
		return driver.Corruptf("nbit: %d-byte array in %d bytes", total, len(dst))
	}
	switch class {
	case nbitAtomic:
		q, err := d.params(idx, 4)
		if err != nil {
			return err
		}
		p := nbitAtom{size: q[0], order: q[1], precision: q[2], offset: q[3]}
		if err := p.check(); err != nil {
			return err
		}
		for i := uint32(0); i < total/p.size; i++ {
			if err := d.atomic(dst[i*p.size:], p); err != nil {
				return err
			}
		}
	case nbitArray, nbitCompound:
		q, err := d.params(idx, 1) // the base type's size, read ahead
		if err != nil {
			return err
		}
		*idx--
		base := q[0]
		if base == 0 {
			return driver.Corruptf("nbit: array of 0-byte elements")
		}
		begin := *idx
		for i := uint32(0); i < total/base; i++ {
			// Each element gets its own base bytes: a nested type that
			// claims more is corrupt (libhdf5 would write past it).
			elem := dst[i*base : (i+1)*base]
			if class == nbitArray {
				err = d.array(elem, idx)
			} else {
				err = d.compound(elem, idx)
			}
			if err != nil {
				return err
			}
			*idx = begin // libhdf5 restarts the base type's parameters, also after the last
		}
	case nbitNoop:
		if _, err := d.params(idx, 1); err != nil {
			return err
		}
		return d.noop(dst, total)
	default:
		return driver.Corruptf("nbit: type class %d", class)
	}
	return nil
}

// compound unpacks one compound element into dst
// (H5Z__nbit_decompress_one_compound), with libhdf5's checks that the
// members fit.
func (d *nbitDecoder) compound(dst []byte, idx *int) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	h, err := d.params(idx, 2)
	if err != nil {
		return err
	}
	size, members := h[0], h[1]
	if uint64(size) > uint64(len(dst)) {
		return driver.Corruptf("nbit: %d-byte compound in %d bytes", size, len(dst))
	}
	used := uint64(0)
	for m := uint32(0); m < members; m++ {
		q, err := d.params(idx, 3)
		if err != nil {
			return err
		}
		*idx-- // the member's size stays for its class to read
		off, class, msize := q[0], q[1], q[2]
		used += uint64(msize)
		if msize == 0 || used > uint64(size) || uint64(off)+uint64(msize) > uint64(size) {
			return driver.Corruptf("nbit: compound member of %d bytes at %d overflows the %d-byte compound", msize, off, size)
		}
		mdst := dst[off : off+msize]
		switch class {
		case nbitAtomic:
			q, err := d.params(idx, 4)
			if err != nil {
				return err
			}
			p := nbitAtom{size: q[0], order: q[1], precision: q[2], offset: q[3]}
			if err := p.check(); err != nil {
				return err
			}
			if err := d.atomic(mdst, p); err != nil {
				return err
			}
		case nbitArray:
			err = d.array(mdst, idx)
		case nbitCompound:
			err = d.compound(mdst, idx)
		case nbitNoop:
			*idx++
			err = d.noop(mdst, msize)
		default:
			return driver.Corruptf("nbit: type class %d", class)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
