package arraycodec

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pipefs/pipefs/vfs"
	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// readLimited reads r to its end, failing once it yields more than max
// bytes. The buffer grows with what is read, never with what a header
// claims.
func readLimited(name string, r io.Reader, max int) ([]byte, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, corrupt(name, err)
	}
	if n > int64(max) {
		return nil, vfs.Limitf("%s: decoded data exceeds %d bytes", name, max)
	}
	return buf.Bytes(), nil
}

func corrupt(name string, err error) error {
	if errors.Is(err, vfs.ErrLimit) || errors.Is(err, vfs.ErrCorrupt) {
		return err
	}
	return vfs.Corruptf("%s: %v", name, err)
}

// Zlib decodes a zlib stream (RFC 1950) of at most max bytes.
func Zlib(src []byte, max int) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, corrupt("zlib", err)
	}
	defer r.Close()
	return readLimited("zlib", r, max)
}

// Gzip decodes gzip members (RFC 1952) holding at most max bytes.
func Gzip(src []byte, max int) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, corrupt("gzip", err)
	}
	defer r.Close()
	return readLimited("gzip", r, max)
}

// maxZstdWindow bounds the history a zstd frame may ask the decoder to
// keep, so that a frame header cannot claim gigabytes of memory.
const maxZstdWindow = 1 << 27

// zstdPool holds streaming decoders for reuse: creating one per chunk or
// per Blosc stream costs more than decoding small data.
var zstdPool = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderLowmem(true))
	if err != nil {
		return err
	}
	return d
}}

// Zstd decodes zstd frames holding at most max bytes.
func Zstd(src []byte, max int) ([]byte, error) {
	v := zstdPool.Get()
	d, ok := v.(*zstd.Decoder)
	if !ok {
		return nil, corrupt("zstd", v.(error))
	}
	if err := d.Reset(bytes.NewReader(src)); err != nil {
		zstdPool.Put(d)
		return nil, corrupt("zstd", err)
	}
	out, err := readLimited("zstd", d, max)
	d.Reset(nil)
	zstdPool.Put(d)
	return out, err
}

// Bzip2 decodes a bzip2 stream of at most max bytes.
func Bzip2(src []byte, max int) ([]byte, error) {
	return readLimited("bzip2", bzip2.NewReader(bytes.NewReader(src)), max)
}

// XZ decodes an .xz stream of at most max bytes.
func XZ(src []byte, max int) ([]byte, error) {
	r, err := xz.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, corrupt("xz", err)
	}
	return readLimited("xz", r, max)
}

// LZMA decodes a legacy .lzma ("lzma alone") stream of at most max bytes.
func LZMA(src []byte, max int) ([]byte, error) {
	r, err := lzma.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, corrupt("lzma", err)
	}
	return readLimited("lzma", r, max)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C checks the trailing u32le CRC-32C of src (the Zarr v3 crc32c
// codec) and returns src without it.
func CRC32C(src []byte) ([]byte, error) {
	if len(src) < 4 {
		return nil, vfs.Corruptf("crc32c: %d bytes, need at least 4", len(src))
	}
	n := len(src) - 4
	want := le32(src[n:])
	if got := crc32.Checksum(src[:n], castagnoli); got != want {
		return nil, vfs.Corruptf("crc32c: checksum %08x, stored %08x", got, want)
	}
	return src[:n:n], nil
}

// CRC32Prefix checks the leading u32le checksum of src (numcodecs crc32 or
// adler32 filters; sum computes it) and returns the rest.
func CRC32Prefix(name string, src []byte, sum func([]byte) uint32) ([]byte, error) {
	if len(src) < 4 {
		return nil, vfs.Corruptf("%s: %d bytes, need at least 4", name, len(src))
	}
	if got, want := sum(src[4:]), le32(src); got != want {
		return nil, vfs.Corruptf("%s: checksum %08x, stored %08x", name, got, want)
	}
	return src[4:], nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// Vlen splits the numcodecs vlen-utf8 / vlen-bytes layout: a u32le item
// count, which must equal count, then per item a u32le length and the
// bytes. The items alias src.
func Vlen(src []byte, count int) ([][]byte, error) {
	if len(src) < 4 {
		return nil, vfs.Corruptf("vlen: %d bytes, need a 4-byte count", len(src))
	}
	if n := le32(src); int64(n) != int64(count) {
		return nil, vfs.Corruptf("vlen: %d items, the chunk has %d elements", n, count)
	}
	// Each item takes at least 4 bytes: a count above that is a lie,
	// caught before the slice is allocated.
	if int64(count) > int64(len(src)-4)/4 {
		return nil, vfs.Corruptf("vlen: %d items cannot fit in %d bytes", count, len(src))
	}
	out := make([][]byte, count)
	p := src[4:]
	for i := range out {
		if len(p) < 4 {
			return nil, vfs.Corruptf("vlen: item %d: truncated length", i)
		}
		n := le32(p)
		p = p[4:]
		if uint64(n) > uint64(len(p)) {
			return nil, vfs.Corruptf("vlen: item %d: length %d past the end", i, n)
		}
		out[i] = p[:n:n]
		p = p[n:]
	}
	if len(p) != 0 {
		return nil, vfs.Corruptf("vlen: %d trailing bytes", len(p))
	}
	return out, nil
}

// errUnsupported builds an error naming an unsupported codec.
func errUnsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errors.ErrUnsupported, fmt.Sprintf(format, args...))
}
