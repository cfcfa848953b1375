package arraycodec

import (
	"bytes"
	"compress/bzip2"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
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
		return nil, driver.Limitf("%s: decoded data exceeds %d bytes", name, max)
	}
	return buf.Bytes(), nil
}

func corrupt(name string, err error) error {
	if errors.Is(err, driver.ErrLimit) || errors.Is(err, driver.ErrCorrupt) {
		return err
	}
	return driver.Corruptf("%s: %v", name, err)
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

// XZComplete is XZ on a stream that must end in a stream footer
// (its magic "YZ", then any stream padding): the xz reader takes a stream
// cut right after a block for a whole one, so a truncated chunk would
// decode without an error.
func XZComplete(src []byte, max int) ([]byte, error) {
	end := len(src)
	for end >= 4 && string(src[end-4:end]) == "\x00\x00\x00\x00" {
		end -= 4 // stream padding: null bytes in fours
	}
	if end < 12 || string(src[end-2:end]) != "YZ" {
		return nil, corrupt("xz", errors.New("truncated stream: no stream footer"))
	}
	return XZ(src, max)
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
		return nil, driver.Corruptf("crc32c: %d bytes, need at least 4", len(src))
	}
	n := len(src) - 4
	want := le32(src[n:])
	if got := crc32.Checksum(src[:n], castagnoli); got != want {
		return nil, driver.Corruptf("crc32c: checksum %08x, stored %08x", got, want)
	}
	return src[:n:n], nil
}

// CRC32Prefix checks the leading u32le checksum of src (numcodecs crc32 or
// adler32 filters; sum computes it) and returns the rest.
func CRC32Prefix(name string, src []byte, sum func([]byte) uint32) ([]byte, error) {
	if len(src) < 4 {
		return nil, driver.Corruptf("%s: %d bytes, need at least 4", name, len(src))
	}
	if got, want := sum(src[4:]), le32(src); got != want {
		return nil, driver.Corruptf("%s: checksum %08x, stored %08x", name, got, want)
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
	if err := checkVlenCount(src, count); err != nil {
		return nil, err
	}
	out := make([][]byte, count)
	err := walkVlen(src, count, func(i, lo, hi int) { out[i] = src[lo:hi:hi] })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// VlenStrings is Vlen giving strings. They share one copy of the item
// bytes, so the strings take no more memory than src. With utf8 set
// (vlen-utf8) every item must be valid UTF-8.
func VlenStrings(src []byte, count int, utf8Only bool) ([]string, error) {
	if err := checkVlenCount(src, count); err != nil {
		return nil, err
	}
	all := string(src)
	out := make([]string, count)
	bad := -1
	err := walkVlen(src, count, func(i, lo, hi int) {
		out[i] = all[lo:hi]
		if utf8Only && bad < 0 && !utf8.ValidString(out[i]) {
			bad = i
		}
	})
	if err != nil {
		return nil, err
	}
	if bad >= 0 {
		return nil, driver.Corruptf("vlen-utf8: item %d is not valid UTF-8", bad)
	}
	return out, nil
}

// checkVlenCount checks the item count of a vlen buffer before anything is
// allocated for its items.
func checkVlenCount(src []byte, count int) error {
	if len(src) < 4 {
		return driver.Corruptf("vlen: %d bytes, need a 4-byte count", len(src))
	}
	if n := le32(src); int64(n) != int64(count) {
		return driver.Corruptf("vlen: %d items, the chunk has %d elements", n, count)
	}
	// Each item takes at least 4 bytes: a count above that is a lie,
	// caught before the items are allocated.
	if count < 0 || int64(count) > int64(len(src)-4)/4 {
		return driver.Corruptf("vlen: %d items cannot fit in %d bytes", count, len(src))
	}
	return nil
}

// walkVlen calls item with the bounds in src of each of the count items.
func walkVlen(src []byte, count int, item func(i, lo, hi int)) error {
	p := 4
	for i := 0; i < count; i++ {
		if len(src)-p < 4 {
			return driver.Corruptf("vlen: item %d: truncated length", i)
		}
		n := le32(src[p:])
		p += 4
		if uint64(n) > uint64(len(src)-p) {
			return driver.Corruptf("vlen: item %d: length %d past the end", i, n)
		}
		item(i, p, p+int(n))
		p += int(n)
	}
	if p != len(src) {
		return driver.Corruptf("vlen: %d trailing bytes", len(src)-p)
	}
	return nil
}

// JSON2Strings decodes a numcodecs json2 chunk: a JSON list of the items,
// then the dtype and the shape, which must hold count elements. Items
// must be strings; null reads as fill.
func JSON2Strings(src []byte, count int, fill string) ([]string, error) {
	// Each item takes at least 2 bytes ("0,"): a count above that is
	// refused before decoding.
	if count < 0 || int64(count) > int64(len(src))/2 {
		return nil, driver.Corruptf("json2: %d items cannot fit in %d bytes", count, len(src))
	}
	var list []json.RawMessage
	if err := json.Unmarshal(src, &list); err != nil {
		return nil, driver.Corruptf("json2: %v", err)
	}
	if len(list) < 2 {
		return nil, driver.Corruptf("json2: %d values, need the items, a dtype and a shape", len(list))
	}
	var shape []int64
	if err := json.Unmarshal(list[len(list)-1], &shape); err != nil {
		return nil, driver.Corruptf("json2: shape %s: %v", list[len(list)-1], err)
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 || d > int64(len(src)) {
			return nil, driver.Corruptf("json2: shape %v", shape)
		}
		n *= d
		if n > int64(len(src)) {
			return nil, driver.Corruptf("json2: shape %v", shape)
		}
	}
	items := list[:len(list)-2]
	if n != int64(count) || len(items) != count {
		return nil, driver.Corruptf("json2: %d items of shape %v, the chunk has %d elements", len(items), shape, count)
	}
	out := make([]string, count)
	for i, raw := range items {
		if string(raw) == "null" {
			out[i] = fill
			continue
		}
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, errUnsupported("json2: item %d is %s, not a string", i, raw)
		}
	}
	return out, nil
}

// errUnsupported builds an error naming an unsupported codec.
func errUnsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errors.ErrUnsupported, fmt.Sprintf(format, args...))
}
