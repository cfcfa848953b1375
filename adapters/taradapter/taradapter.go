package taradapter

import (
	"bytes"
	"context"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// Scheme is the adapter scheme this package registers.
const Scheme = "pipefs.tar"

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: Scheme, OpenFile: openAdapter, Extensions: []string{".tar"}, FollowsLinks: true})
	vfs.RegisterFormat(&vfs.Format{
		Name:    "tar",
		Adapter: Scheme + ":",
		Input:   vfs.KindFile,
		Head:    blockSize,
		Match:   Match,
	})
}

// openAdapter opens the pipefs.tar: sub-URL u over the file src. It does
// no I/O: the index is found in the cache, or built at the first call that
// needs it.
func openAdapter(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	return driver.Location{Tree: openDisk(src, env.Key, env.Options, env.DiskIndex(diskKind(env.Limits))), Path: u.Key()}, nil
}

// Match reports whether head, the first bytes of a file, starts with a tar
// header block: the "ustar" magic at offset 257 (POSIX "ustar\x0000" or
// GNU "ustar  \x00") with a valid header checksum, or, for the magic-less
// V7 format, a valid checksum together with a plausible name, mode and
// type flag. The checksum is what keeps random data out: a V7 header has
// no other signature. tail and size are not used beyond a size check.
func Match(head, tail []byte, size int64) bool {
	if len(head) < blockSize || size < blockSize {
		return false
	}
	b := head[:blockSize]
	if !checksumOK(b) {
		return false
	}
	magic := b[257:265]
	if bytes.Equal(magic, []byte("ustar\x0000")) || bytes.Equal(magic, []byte("ustar  \x00")) {
		return true
	}
	// V7: no magic. Demand a name, a NUL-or-space padded octal mode, an
	// all-zero magic area and a type flag V7 knew.
	if b[0] == 0 || !bytes.Equal(magic, make([]byte, 8)) {
		return false
	}
	switch b[156] {
	case 0, '0', '1', '2', '3', '4', '5', '6', '7':
	default:
		return false
	}
	if _, ok := parseOctal(b[100:108]); !ok {
		return false
	}
	_, ok := parseOctal(b[124:136])
	return ok
}

// checksumOK reports whether the header block b carries a valid checksum:
// the sum of its bytes with the checksum field read as spaces, as unsigned
// or (for old writers) signed bytes. An all-zero block is not a header.
func checksumOK(b []byte) bool {
	want, ok := parseOctal(b[148:156])
	if !ok {
		return false
	}
	var unsigned, signed int64
	for i, c := range b[:blockSize] {
		if 148 <= i && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return want == unsigned || want == signed
}

// parseOctal parses a NUL or space padded octal field. An empty field is
// not a number.
func parseOctal(f []byte) (int64, bool) {
	f = bytes.Trim(f, " \x00")
	if len(f) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range f {
		if c < '0' || c > '7' || v > (1<<62)>>3 {
			return 0, false
		}
		v = v<<3 | int64(c-'0')
	}
	return v, true
}

// parseNumeric parses a numeric header field as archive/tar does: octal,
// or base-256 (GNU) when the high bit of the first byte is set.
func parseNumeric(f []byte) (int64, bool) {
	if len(f) > 0 && f[0]&0x80 != 0 {
		// Base-256, two's complement; only non-negative values that fit
		// in an int64 are accepted.
		if f[0]&0x40 != 0 {
			return 0, false
		}
		var v int64
		for i, c := range f {
			if i == 0 {
				c &= 0x7f
			}
			if v > (1<<63-1)>>8 {
				return 0, false
			}
			v = v<<8 | int64(c)
		}
		return v, true
	}
	if len(bytes.Trim(f, " \x00")) == 0 {
		return 0, true
	}
	return parseOctal(f)
}
