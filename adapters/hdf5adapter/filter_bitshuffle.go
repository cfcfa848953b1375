package hdf5adapter

import (
	"encoding/binary"

	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs/driver"
)

// Bitshuffle client data values (kiyo-masui/bitshuffle's HDF5 filter):
// format major and minor version, element size, block size in elements
// (0: the default), compression (0 none, 2 lz4, 3 zstd), zstd level.
const (
	bshufElemSize    = 2
	bshufBlockSize   = 3
	bshufCompression = 4

	bshufLZ4  = 2
	bshufZstd = 3

	// bshufBlockedMult: blocks hold a multiple of 8 elements; the last
	// size%8 elements of a chunk are stored as they are.
	bshufBlockedMult = 8
	// bshufTargetBlock and bshufMinBlock make bitshuffle's default block
	// size: 8 KiB of elements, at least 128 elements.
	bshufTargetBlock = 8192
	bshufMinBlock    = 128
)

// decodeBitshuffle undoes filter 32008, bitshuffle: the chunk's elements
// in blocks, each block's bits transposed (bit k of byte j of every
// element together), then, with lz4 or zstd, each block compressed after
// a 4-byte big-endian size and the whole after a 12-byte header (decoded
// size, 8 bytes, and block size in bytes, 4 bytes, big-endian).
func decodeBitshuffle(f Filter, src []byte, _, limit int) ([]byte, error) {
	cd := f.Values
	if len(cd) <= bshufElemSize {
		return nil, driver.Corruptf("bitshuffle: %d parameters, need at least 3", len(cd))
	}
	es := uint64(cd[bshufElemSize])
	if es == 0 {
		return nil, driver.Corruptf("bitshuffle: element size 0")
	}
	var block uint64
	if len(cd) > bshufBlockSize {
		block = uint64(cd[bshufBlockSize])
	}
	var comp uint32
	if len(cd) > bshufCompression {
		comp = cd[bshufCompression]
	}
	total := uint64(len(src))
	in := src
	compressed := comp == bshufLZ4 || comp == bshufZstd
	if compressed {
		if len(src) < 12 {
			return nil, driver.Corruptf("bitshuffle: %d bytes, shorter than the 12-byte header", len(src))
		}
		total = binary.BigEndian.Uint64(src)
		block = uint64(binary.BigEndian.Uint32(src[8:])) / es
		in = src[12:]
	}
	if total > uint64(limit) {
		return nil, driver.Corruptf("bitshuffle: header claims %d bytes, more than the %d the chunk can hold", total, limit)
	}
	if total%es != 0 {
		return nil, driver.Corruptf("bitshuffle: %d bytes are not whole %d-byte elements", total, es)
	}
	if block == 0 {
		block = max(bshufTargetBlock/es/bshufBlockedMult*bshufBlockedMult, bshufMinBlock)
	}
	if block%bshufBlockedMult != 0 {
		return nil, driver.Corruptf("bitshuffle: block of %d elements, not a multiple of 8", block)
	}
	n := total / es
	out := make([]byte, total)
	done := uint64(0) // elements decoded
	last := n % block / bshufBlockedMult * bshufBlockedMult
	for done < n-n%bshufBlockedMult {
		size := block
		if n-done < block {
			size = last
		}
		nbytes := size * es
		var shuffled []byte
		if compressed {
			if len(in) < 4 {
				return nil, driver.Corruptf("bitshuffle: truncated before block at element %d", done)
			}
			c := uint64(binary.BigEndian.Uint32(in))
			if c > uint64(len(in)-4) {
				return nil, driver.Corruptf("bitshuffle: block of %d bytes, %d left", c, len(in)-4)
			}
			var err error
			if comp == bshufLZ4 {
				shuffled, err = arraycodec.LZ4Block(in[4:4+c], int(nbytes))
			} else {
				shuffled, err = arraycodec.Zstd(in[4:4+c], int(nbytes))
				if err == nil && uint64(len(shuffled)) != nbytes {
					err = driver.Corruptf("zstd: block decodes to %d bytes, want %d", len(shuffled), nbytes)
				}
			}
			if err != nil {
				return nil, err
			}
			in = in[4+c:]
		} else {
			if uint64(len(in)) < nbytes {
				return nil, driver.Corruptf("bitshuffle: truncated in block at element %d", done)
			}
			shuffled = in[:nbytes]
			in = in[nbytes:]
		}
		copy(out[done*es:], arraycodec.BitUnshuffle(shuffled, int(es)))
		done += size
	}
	rest := (n - done) * es // fewer than 8 elements, stored as they are
	if uint64(len(in)) < rest {
		return nil, driver.Corruptf("bitshuffle: truncated in the last %d elements", n-done)
	}
	copy(out[done*es:], in[:rest])
	return out, nil
}
