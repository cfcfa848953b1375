package array

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// StringHeader is what ReadStrings counts against its limit for each
// element of the result, besides the bytes decoded; a StringReader that
// allocates a whole shard of strings charges it per element too.
const StringHeader = 16

// IsStrings reports whether ReadStrings reads the array: variable-length
// strings or bytes (Zarr v3 string and bytes, Zarr v2 object arrays with
// vlen-utf8, vlen-bytes or json2) and fixed-size strings (U, S).
func (a *Array) IsStrings() bool {
	switch a.DType.Kind {
	case 'O', 'U', 'S':
		return true
	}
	return false
}

// StringFill returns the fill value of a string array as a string: the
// metadata's fill_value when it is a JSON string, else "" (Zarr v2 writes
// 0 for object arrays).
func (a *Array) StringFill() string {
	var s string
	if json.Unmarshal(a.FillValue, &s) == nil {
		return s
	}
	if a.Fill != nil && (a.DType.Kind == 'U' || a.DType.Kind == 'S') {
		if v, err := fixedString(a.Fill, a.DType.Kind); err == nil {
			return v
		}
	}
	return ""
}

// ReadStrings reads the elements in [start, stop) (per axis, C order) of a
// string array as strings: variable-length strings (vlen-utf8, json2),
// variable-length bytes (vlen-bytes, as Go strings of those bytes), and
// fixed-size U (UTF-32) and S (bytes) elements with their trailing NULs
// removed, as NumPy reads them. Missing chunks read as the fill value
// (StringFill); edge chunks are cropped; sharded Zarr v3 arrays read their
// inner chunks.
//
// limit bounds the bytes decoded (limit <= 0: only the chunk limit): the
// decoded size of every chunk read, plus 16 bytes per element of the
// result. Past it the read fails with driver.ErrLimit before allocating more.
// A malformed chunk gives an error matching driver.ErrCorrupt; an array that
// holds no strings an error matching fs.ErrInvalid; a codec this package
// cannot decode to strings one matching ErrUnsupported.
func (a *Array) ReadStrings(ctx context.Context, start, stop []int64, limit int64) ([]string, error) {
	if !a.IsStrings() {
		return nil, fmt.Errorf("%s elements are not strings (read them with ReadBox): %w", a.DType.Name, fs.ErrInvalid)
	}
	if len(start) != len(a.Shape) || len(stop) != len(a.Shape) {
		return nil, fmt.Errorf("box of %d dimensions for %d: %w", len(start), len(a.Shape), fs.ErrInvalid)
	}
	ext := make([]int64, len(start))
	n := int64(1)
	for i := range start {
		if start[i] < 0 || stop[i] < start[i] || stop[i] > a.Shape[i] {
			return nil, fmt.Errorf("box [%v, %v) outside the shape %v: %w", start, stop, a.Shape, fs.ErrInvalid)
		}
		ext[i] = stop[i] - start[i]
		n *= ext[i] // at most Size(), which CheckGrid bounded
	}
	b := newBudget(limit, a.limits)
	if n > math.MaxInt64/StringHeader {
		return nil, driver.Limitf("box [%v, %v) is too large", start, stop)
	}
	if err := b.Take(n*StringHeader, "the result's string headers"); err != nil {
		return nil, fmt.Errorf("box [%v, %v) of %d elements: %w", start, stop, n, err)
	}
	if !a.DType.Variable() {
		return a.readFixedStrings(ctx, start, stop, b)
	}
	sr, ok := a.Reader.(StringReader)
	if !ok {
		return nil, Unsupported("%s arrays of %s elements", a.KeyEncoding, a.DType.Name)
	}
	fill := a.StringFill()
	out := make([]string, n)
	if fill != "" {
		for i := range out {
			out[i] = fill
		}
	}
	if n == 0 {
		return out, nil
	}
	err := a.forEachChunkInBox(ctx, start, stop, func(coord []int64, part boxPart) error {
		chunk, found, err := sr.ReadStrings(ctx, coord, fill, b)
		if err != nil || !found {
			return err
		}
		CopyBox(out, ext, part.dstLo, chunk, a.ChunkShape, part.lo, part.ext, 1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readFixedStrings reads a box of U or S elements through ReadBox.
func (a *Array) readFixedStrings(ctx context.Context, start, stop []int64, b *Budget) ([]string, error) {
	raw, err := a.ReadBox(ctx, start, stop, b.left)
	if err != nil {
		return nil, err
	}
	size := a.DType.Size
	out := make([]string, len(raw)/size)
	for i := range out {
		if out[i], err = fixedString(raw[i*size:(i+1)*size], a.DType.Kind); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return out, nil
}

// fixedString converts one U (UTF-32LE) or S element to a string without
// its trailing NULs.
func fixedString(e []byte, kind byte) (string, error) {
	if kind == 'S' {
		return strings.TrimRight(string(e), "\x00"), nil
	}
	end := len(e)
	for end >= 4 && binary.LittleEndian.Uint32(e[end-4:]) == 0 {
		end -= 4
	}
	var sb strings.Builder
	for i := 0; i+4 <= end; i += 4 {
		r := rune(binary.LittleEndian.Uint32(e[i:]))
		if !utf8.ValidRune(r) {
			return "", driver.Corruptf("code point %#x is not a Unicode scalar value", uint32(r))
		}
		sb.WriteRune(r)
	}
	return sb.String(), nil
}

// A Budget is what is left of a read's limit on decoded bytes, which
// ReadStrings passes to StringReader.ReadStrings. Its methods are not safe
// for concurrent use.
type Budget struct {
	left     int64 // bytes left
	limit    int64 // as given; 0 for none
	maxChunk int64
}

func newBudget(limit int64, lim vfs.Limits) *Budget {
	lim = lim.Effective()
	b := &Budget{left: math.MaxInt64, maxChunk: lim.MaxChunk}
	if limit > 0 {
		b.left, b.limit = limit, limit
	}
	return b
}

// Max is the most bytes one decoder may produce now: what is left, at
// most the chunk limit.
func (b *Budget) Max() int {
	return int(min(b.left, b.maxChunk, math.MaxInt32))
}

// Take charges n bytes decoded for what, failing with driver.ErrLimit past
// the limit.
func (b *Budget) Take(n int64, what string) error {
	if n > b.left || n < 0 {
		return driver.Limitf("%s: %d bytes, past the limit of %d bytes decoded", what, n, b.limit)
	}
	b.left -= n
	return nil
}

// Left is the number of bytes left.
func (b *Budget) Left() int64 { return b.left }

// MaxChunk is the chunk limit (vfs.Limits.MaxChunk) of the read.
func (b *Budget) MaxChunk() int64 { return b.maxChunk }
