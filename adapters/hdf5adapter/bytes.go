package hdf5adapter

import (
	"encoding/binary"
	"math/bits"

	"github.com/pipefs/pipefs/vfs/driver"
)

// undef is the undefined address (all bits set), once widened to 64 bits.
const undef = ^uint64(0)

// cursor reads little-endian fields from a metadata structure. Reading
// past the end sets err (corrupt) and returns zeros from then on, so that
// a parser checks err once at the end.
type cursor struct {
	b    []byte
	p    int
	what string // the structure, for messages
	err  error
	o, l int // sizes of offsets and lengths
}

func (c *cursor) take(n int) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > len(c.b)-c.p {
		c.err = driver.Corruptf("%s: truncated: %d bytes wanted at %d of %d", c.what, n, c.p, len(c.b))
		return nil
	}
	s := c.b[c.p : c.p+n]
	c.p += n
	return s
}

func (c *cursor) skip(n int) { c.take(n) }

func (c *cursor) left() int {
	if c.err != nil {
		return 0
	}
	return len(c.b) - c.p
}

func (c *cursor) u8() uint8 {
	b := c.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (c *cursor) u16() uint16 {
	b := c.take(2)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

func (c *cursor) u32() uint32 {
	b := c.take(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

// uint reads an n-byte little-endian unsigned integer (n <= 8).
func (c *cursor) uint(n int) uint64 {
	if n > 8 {
		c.skip(n)
		if c.err == nil {
			c.err = driver.Corruptf("%s: %d-byte integer", c.what, n)
		}
		return 0
	}
	return leUint(c.take(n))
}

// addr reads an address: O bytes, widened so that UNDEF is undef.
func (c *cursor) addr() uint64 {
	b := c.take(c.o)
	if b == nil {
		return undef
	}
	return widen(b)
}

// length reads a length of L bytes.
func (c *cursor) length() uint64 {
	b := c.take(c.l)
	if b == nil {
		return 0
	}
	return widen(b)
}

// widen reads a little-endian integer of len(b) bytes; all ones is undef.
func widen(b []byte) uint64 {
	all := true
	for _, x := range b {
		if x != 0xff {
			all = false
			break
		}
	}
	if all {
		return undef
	}
	return leUint(b)
}

func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// bytesFor returns the number of bytes needed to store n.
func bytesFor(n uint64) int {
	return (bits.Len64(n) + 7) / 8
}

// lookup3 is Bob Jenkins' lookup3 hashlittle with initval 0, which HDF5
// uses for its metadata checksums and link name hashes.
func lookup3(k []byte) uint32 {
	le32 := binary.LittleEndian.Uint32
	rotl := bits.RotateLeft32
	a := 0xdeadbeef + uint32(len(k))
	b, c := a, a
	for len(k) > 12 {
		a += le32(k)
		b += le32(k[4:])
		c += le32(k[8:])
		a -= c
		a ^= rotl(c, 4)
		c += b
		b -= a
		b ^= rotl(a, 6)
		a += c
		c -= b
		c ^= rotl(b, 8)
		b += a
		a -= c
		a ^= rotl(c, 16)
		c += b
		b -= a
		b ^= rotl(a, 19)
		a += c
		c -= b
		c ^= rotl(b, 4)
		b += a
		k = k[12:]
	}
	if len(k) == 0 {
		return c
	}
	var t [12]byte
	copy(t[:], k)
	a += le32(t[:])
	b += le32(t[4:])
	c += le32(t[8:])
	c ^= b
	c -= rotl(b, 14)
	a ^= c
	a -= rotl(c, 11)
	b ^= a
	b -= rotl(a, 25)
	c ^= b
	c -= rotl(b, 16)
	a ^= c
	a -= rotl(c, 4)
	b ^= a
	b -= rotl(a, 14)
	c ^= b
	c -= rotl(b, 24)
	return c
}

// checkSum verifies the lookup3 checksum that follows the first n bytes
// of b.
func checkSum(b []byte, n int, what string) error {
	if n < 0 || n+4 > len(b) {
		return driver.Corruptf("%s: truncated before its checksum", what)
	}
	want := binary.LittleEndian.Uint32(b[n:])
	if got := lookup3(b[:n]); got != want {
		return driver.Corruptf("%s: checksum %#08x, stored %#08x", what, got, want)
	}
	return nil
}
