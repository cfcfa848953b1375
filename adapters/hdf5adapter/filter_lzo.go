package hdf5adapter

import (
	"encoding/binary"
	"hash/adler32"

	"github.com/pipefs/pipefs/internal/lzo"
	"github.com/pipefs/pipefs/vfs/driver"
)

// decodeLZO undoes filter 305, PyTables' LZO filter (tables/src/H5Zlzo.c):
// one LZO1X stream. Built with CHECKSUM, the filter follows the stream of
// a table of format 2.0 or later, or of any other object, with the
// Adler-32 of the decoded bytes (4 bytes, little-endian as PyTables
// writes it on x86); PyTables as distributed writes none. The stream
// carries its own end, so both read the same way: 4 bytes after it are
// that checksum, and are verified; any other number is corrupt data. Its
// values (compression level, the object's format version ×10 and its
// type) do not change decoding.
func decodeLZO(_ Filter, src []byte, _, limit int) ([]byte, error) {
	out, n, err := lzo.Decompress(src, limit)
	if err != nil {
		return nil, err
	}
	switch len(src) - n {
	case 0:
	case 4:
		stored := binary.LittleEndian.Uint32(src[n:])
		if sum := adler32.Checksum(out); sum != stored {
			return nil, driver.Corruptf("lzo: Adler-32 %#08x, data sums to %#08x", stored, sum)
		}
	default:
		return nil, driver.Corruptf("lzo: %d bytes after the end of the stream", len(src)-n)
	}
	return out, nil
}
