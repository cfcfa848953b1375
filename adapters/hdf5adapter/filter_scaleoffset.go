package hdf5adapter

import (
	"encoding/binary"
	"math"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Scale-offset client data values (libhdf5's H5Zscaleoffset.c): 20 of
// them, set by H5Pset_scaleoffset (the first two) and by the library.
const (
	soScaleType   = 0  // 0 float D-scaling, 1 float E-scaling, 2 integer
	soScaleFactor = 1  // decimal scale factor D, or an integer's minimum bits
	soNelmts      = 2  // elements in the chunk
	soClass       = 3  // 0 integer, 1 float
	soSize        = 4  // element size
	soSign        = 5  // 0 unsigned, 1 two's complement
	soOrder       = 6  // 0 little-endian, 1 big-endian
	soFillAvail   = 7  // 1 when the fill value is defined
	soFill        = 8  // the fill value, little-endian in 32-bit words
	soNparms      = 20 // how many values there are

	soFloatDScale = 0
	soFloatEScale = 1
	soInt         = 2

	// soHeader is the size of what a scale-offset chunk starts with:
	// minimum bits (4 bytes, little-endian), the size of the minimum (1
	// byte, 8), the minimum (8 bytes, little-endian), 8 unused bytes.
	soHeader = 21
)

// decodeScaleOffset undoes filter 6, scale-offset, as H5Z__filter_scaleoffset
// does: each element is stored in minbits bits (most significant bit
// first) as its difference from the chunk's minimum; a value of all ones
// stands for the fill value when one is defined. Floats (D-scaling) were
// multiplied by 10^D and rounded before: they decode as value/10^D + min,
// computed in the float's own precision.
func decodeScaleOffset(f Filter, src []byte, _, limit int) ([]byte, error) {
	cd := f.Values
	if len(cd) != soNparms {
		return nil, driver.Corruptf("scaleoffset: %d parameters, want %d", len(cd), soNparms)
	}
	class, size, scaleType := cd[soClass], cd[soSize], cd[soScaleType]
	factor := int32(cd[soScaleFactor])
	bigEndian := cd[soOrder] == 1
	switch class {
	case 0:
		if size != 1 && size != 2 && size != 4 && size != 8 {
			return nil, driver.Corruptf("scaleoffset: %d-byte integers", size)
		}
		if scaleType != soInt {
			return nil, driver.Corruptf("scaleoffset: scale type %d for integers", scaleType)
		}
		factor = max(factor, 0)
		if factor > int32(8*size) {
			return nil, driver.Corruptf("scaleoffset: %d minimum bits for %d-byte integers", factor, size)
		}
		if factor == int32(8*size) {
			return src, nil // full precision: libhdf5 stores the data as is
		}
	case 1:
		if size != 4 && size != 8 {
			return nil, driver.Corruptf("scaleoffset: %d-byte floats", size)
		}
		switch scaleType {
		case soFloatDScale:
		case soFloatEScale:
			return nil, driver.Corruptf("scaleoffset: E-scaling, which libhdf5 neither writes nor reads")
		default:
			return nil, driver.Corruptf("scaleoffset: scale type %d for floats", scaleType)
		}
	default:
		return nil, driver.Corruptf("scaleoffset: type class %d", class)
	}
	n := uint64(cd[soNelmts])
	if n*uint64(size) > uint64(limit) {
		return nil, driver.Corruptf("scaleoffset: %d elements of %d bytes, more than the chunk's %d bytes", n, size, limit)
	}
	if len(src) < soHeader {
		return nil, driver.Corruptf("scaleoffset: %d bytes, shorter than the %d-byte header", len(src), soHeader)
	}
	minbits := binary.LittleEndian.Uint32(src)
	var minval uint64
	for i := 0; i < min(8, int(src[4])); i++ {
		minval |= uint64(src[5+i]) << (8 * i)
	}
	if minbits > 8*size {
		return nil, driver.Corruptf("scaleoffset: %d minimum bits for %d-byte elements", minbits, size)
	}
	out := make([]byte, n*uint64(size))
	put := binary.LittleEndian.PutUint64
	if bigEndian {
		put = binary.BigEndian.PutUint64
	}
	if minbits == 8*size {
		// Stored as is, in little-endian order.
		if len(src)-soHeader < len(out) {
			return nil, driver.Corruptf("scaleoffset: %d bytes of data, want %d", len(src)-soHeader, len(out))
		}
		copy(out, src[soHeader:])
		if bigEndian {
			swapFilterElements(out, int(size))
		}
		return out, nil
	}
	fill := uint64(cd[soFill]) | uint64(cd[soFill+1])<<32
	hasFill := cd[soFillAvail] == 1
	ones := uint64(1)<<minbits - 1
	var tmp [8]byte
	r := newPackedBits(src[soHeader:])
	for e := uint64(0); e < n; e++ {
		var v uint64
		if minbits != 0 {
			var err error
			if v, err = r.uint(uint(minbits)); err != nil {
				return nil, driver.Corruptf("scaleoffset: %v", err)
			}
		}
		var bits uint64
		switch {
		case hasFill && v == ones:
			bits = fill
		case class == 0:
			bits = v + minval // wraps as the C integer types do
		case size == 4:
			d := float32(int32(uint32(v)))/filterPow10f32(factor) + math.Float32frombits(uint32(minval))
			bits = uint64(math.Float32bits(d))
		default:
			d := float64(int64(v))/filterPow10f64(factor) + math.Float64frombits(minval)
			bits = math.Float64bits(d)
		}
		// put writes 8 bytes: keep the element's low bytes.
		put(tmp[:], bits)
		dst := out[e*uint64(size) : (e+1)*uint64(size)]
		if bigEndian {
			copy(dst, tmp[8-size:])
		} else {
			copy(dst, tmp[:size])
		}
	}
	return out, nil
}

// uint returns the next n bits, n from 0 to 64, as a number.
func (r *packedBits) uint(n uint) (uint64, error) {
	var v uint64
	if first := n % 8; first != 0 {
		b, err := r.bits(first)
		if err != nil {
			return 0, err
		}
		v = uint64(b)
		n -= first
	}
	for ; n > 0; n -= 8 {
		b, err := r.bits(8)
		if err != nil {
			return 0, err
		}
		v = v<<8 | uint64(b)
	}
	return v, nil
}

// swapFilterElements reverses the bytes of each size-byte element of b.
func swapFilterElements(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		e := b[i : i+size]
		for j := 0; j < size/2; j++ {
			e[j], e[size-1-j] = e[size-1-j], e[j]
		}
	}
}

// filterPow10f32 is powf(10, d) as libhdf5 gets it from C: exact for the
// powers float32 holds exactly, correctly rounded for their inverses.
func filterPow10f32(d int32) float32 {
	switch {
	case d >= 0 && d <= 10:
		return float32(filterPow10[d])
	case d < 0 && d >= -10:
		return 1 / float32(filterPow10[-d])
	}
	return float32(math.Pow(10, float64(d)))
}

// filterPow10f64 is pow(10, d): exact for the powers float64 holds exactly,
// correctly rounded for their inverses.
func filterPow10f64(d int32) float64 {
	switch {
	case d >= 0 && d <= 22:
		return filterPow10[d]
	case d < 0 && d >= -22:
		return 1 / filterPow10[-d]
	}
	return math.Pow(10, float64(d))
}

// filterPow10 holds the powers of ten that float64 represents exactly.
var filterPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}
