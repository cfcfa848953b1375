package arcp

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
)

// A UUID is a 128-bit universally unique identifier (RFC 9562).
type UUID [16]byte

// The name spaces of RFC 9562 section 6.6, for [NewSHA1].
var (
	NamespaceDNS = UUID{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	NamespaceURL = UUID{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
)

// NewSHA1 returns the name-based UUID version 5 of name in the name space
// ns (RFC 9562 section 5.5): the first 16 bytes of the SHA-1 of ns and
// name, with the version and variant bits set.
func NewSHA1(ns UUID, name []byte) UUID {
	h := sha1.New()
	h.Write(ns[:])
	h.Write(name)
	var u UUID
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // variant 10
	return u
}

// String returns u in the hyphenated form of RFC 9562 section 4, in lower
// case: xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// Version returns the version field of u (RFC 9562 section 4.2).
func (u UUID) Version() int { return int(u[6] >> 4) }

// errUUID is the cause of every ParseUUID error.
var errUUID = errors.New("want a UUID of 32 hex digits in groups of 8-4-4-4-12")

// ParseUUID parses the hyphenated form of a UUID, in either case.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, errUUID
	}
	j := 0
	for _, g := range [][2]int{{0, 8}, {9, 13}, {14, 18}, {19, 23}, {24, 36}} {
		n, err := hex.Decode(u[j:], []byte(s[g[0]:g[1]]))
		if err != nil {
			return UUID{}, errUUID
		}
		j += n
	}
	return u, nil
}
