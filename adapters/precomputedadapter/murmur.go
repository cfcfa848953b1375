package precomputedadapter

import (
	"encoding/binary"
	"math/bits"
)

// murmur3x86_128 returns the 128-bit MurmurHash3 (x86 variant) of data with
// seed, as its four 32-bit words h1..h4.
func murmur3x86_128(data []byte, seed uint32) [4]uint32 {
	const (
		c1 = 0x239b961b
		c2 = 0xab0e9789
		c3 = 0x38b34ae5
		c4 = 0xa1e38b93
	)
	h1, h2, h3, h4 := seed, seed, seed, seed
	n := len(data)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		b := data[16*i:]
		k1 := binary.LittleEndian.Uint32(b)
		k2 := binary.LittleEndian.Uint32(b[4:])
		k3 := binary.LittleEndian.Uint32(b[8:])
		k4 := binary.LittleEndian.Uint32(b[12:])

		k1 *= c1
		k1 = bits.RotateLeft32(k1, 15)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft32(h1, 19)
		h1 += h2
		h1 = h1*5 + 0x561ccd1b

		k2 *= c2
		k2 = bits.RotateLeft32(k2, 16)
		k2 *= c3
		h2 ^= k2
		h2 = bits.RotateLeft32(h2, 17)
		h2 += h3
		h2 = h2*5 + 0x0bcaa747

		k3 *= c3
		k3 = bits.RotateLeft32(k3, 17)
		k3 *= c4
		h3 ^= k3
		h3 = bits.RotateLeft32(h3, 15)
		h3 += h4
		h3 = h3*5 + 0x96cd1c35

		k4 *= c4
		k4 = bits.RotateLeft32(k4, 18)
		k4 *= c1
		h4 ^= k4
		h4 = bits.RotateLeft32(h4, 13)
		h4 += h1
		h4 = h4*5 + 0x32ac3b17
	}
	tail := data[16*nblocks:]
	var k [4]uint32
	for i := len(tail) - 1; i >= 0; i-- {
		k[i/4] ^= uint32(tail[i]) << (8 * (i % 4))
	}
	t := len(tail)
	if t > 12 {
		k[3] *= c4
		k[3] = bits.RotateLeft32(k[3], 18)
		k[3] *= c1
		h4 ^= k[3]
	}
	if t > 8 {
		k[2] *= c3
		k[2] = bits.RotateLeft32(k[2], 17)
		k[2] *= c4
		h3 ^= k[2]
	}
	if t > 4 {
		k[1] *= c2
		k[1] = bits.RotateLeft32(k[1], 16)
		k[1] *= c3
		h2 ^= k[1]
	}
	if t > 0 {
		k[0] *= c1
		k[0] = bits.RotateLeft32(k[0], 15)
		k[0] *= c2
		h1 ^= k[0]
	}
	l := uint32(n)
	h1 ^= l
	h2 ^= l
	h3 ^= l
	h4 ^= l
	h1 += h2 + h3 + h4
	h2 += h1
	h3 += h1
	h4 += h1
	h1, h2, h3, h4 = fmix32(h1), fmix32(h2), fmix32(h3), fmix32(h4)
	h1 += h2 + h3 + h4
	h2 += h1
	h3 += h1
	h4 += h1
	return [4]uint32{h1, h2, h3, h4}
}

func fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// murmurChunkID is the "murmurhash3_x86_128" hash of the sharded format:
// MurmurHash3_x86_128 (seed 0) of id as 8 little-endian bytes, whose low 8
// bytes are read as a little-endian uint64.
func murmurChunkID(id uint64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], id)
	h := murmur3x86_128(b[:], 0)
	return uint64(h[1])<<32 | uint64(h[0])
}
