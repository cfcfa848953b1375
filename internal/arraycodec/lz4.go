package arraycodec

import (
	"github.com/pierrec/lz4/v4"
	"github.com/pipefs/pipefs/vfs/driver"
)

// LZ4Block decodes one raw LZ4 block that must decode to exactly size
// bytes.
func LZ4Block(src []byte, size int) ([]byte, error) {
	dst := make([]byte, size)
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return nil, driver.Corruptf("lz4: %v", err)
	}
	if n != size {
		return nil, driver.Corruptf("lz4: block decodes to %d bytes, want %d", n, size)
	}
	return dst, nil
}

// LZ4 decodes the numcodecs lz4 framing: a u32le decoded size, then one raw
// LZ4 block (not an LZ4 frame). The size must be at most max.
func LZ4(src []byte, max int) ([]byte, error) {
	if len(src) < 4 {
		return nil, driver.Corruptf("lz4: %d bytes, need a 4-byte size", len(src))
	}
	n := le32(src)
	if int64(n) > int64(max) {
		return nil, driver.Limitf("lz4: size prefix %d exceeds %d", n, max)
	}
	// LZ4 expands at most 255:1; a larger claim is a lie.
	if int64(n) > 255*int64(len(src)-4)+16 {
		return nil, driver.Corruptf("lz4: size prefix %d impossible for %d compressed bytes", n, len(src)-4)
	}
	if n == 0 {
		return []byte{}, nil
	}
	return LZ4Block(src[4:], int(n))
}
