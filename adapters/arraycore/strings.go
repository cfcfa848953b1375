package arraycore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/arraycodec"
)

// stringHeader is what ReadStrings counts against its limit for each
// element of the result, besides the bytes decoded.
const stringHeader = 16

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
		n *= ext[i] // at most Size(), which checkGrid bounded
	}
	b := newBudget(limit, a.limits)
	if n > math.MaxInt64/stringHeader {
		return nil, driver.Limitf("box [%v, %v) is too large", start, stop)
	}
	if err := b.take(n*stringHeader, "the result's string headers"); err != nil {
		return nil, fmt.Errorf("box [%v, %v) of %d elements: %w", start, stop, n, err)
	}
	if !a.DType.Variable() {
		return a.readFixedStrings(ctx, start, stop, b)
	}
	sr, ok := a.reader.(stringReader)
	if !ok {
		return nil, unsupported("%s arrays of %s elements", a.KeyEncoding, a.DType.Name)
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
		chunk, found, err := sr.readStrings(ctx, coord, fill, b)
		if err != nil || !found {
			return err
		}
		copyBox(out, ext, part.dstLo, chunk, a.ChunkShape, part.lo, part.ext, 1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readFixedStrings reads a box of U or S elements through ReadBox.
func (a *Array) readFixedStrings(ctx context.Context, start, stop []int64, b *budget) ([]string, error) {
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

// stringReader is implemented by the chunk readers of formats with string
// types: readStrings decodes the chunk at coord of the read grid to its
// elements, C order, at the full chunk shape, charging what it decodes to
// b. found is false when the chunk is not stored.
type stringReader interface {
	readStrings(ctx context.Context, coord []int64, fill string, b *budget) (s []string, found bool, err error)
}

// budget is what is left of a read's limit on decoded bytes.
type budget struct {
	left     int64
	limit    int64 // as given; 0 for none
	maxChunk int64
}

func newBudget(limit int64, lim Limits) *budget {
	lim = lim.effective()
	b := &budget{left: math.MaxInt64, maxChunk: lim.MaxChunkBytes}
	if limit > 0 {
		b.left, b.limit = limit, limit
	}
	return b
}

// max is the most bytes one decoder may produce now.
func (b *budget) max() int {
	return int(min(b.left, b.maxChunk, math.MaxInt32))
}

// take charges n bytes, failing with driver.ErrLimit past the limit.
func (b *budget) take(n int64, what string) error {
	if n > b.left || n < 0 {
		return driver.Limitf("%s: %d bytes, past the limit of %d bytes decoded", what, n, b.limit)
	}
	b.left -= n
	return nil
}

// objectStrings decodes the bytes of one chunk of count elements with the
// object codec id (vlen-utf8, vlen-bytes, json2).
func objectStrings(id string, data []byte, count int64, fill string) ([]string, error) {
	if count > math.MaxInt32 {
		return nil, driver.Limitf("chunk of %d elements", count)
	}
	switch id {
	case "vlen-utf8", "vlen-bytes":
		return arraycodec.VlenStrings(data, int(count), id == "vlen-utf8")
	case "json2":
		return arraycodec.JSON2Strings(data, int(count), fill)
	}
	return nil, unsupported("codec %q does not decode to strings", id)
}

// readStrings reads a Zarr v2 object chunk: the compressor, the byte
// filters in reverse, then the object filter, which must come first.
func (r *zarr2Reader) readStrings(ctx context.Context, coord []int64, fill string, b *budget) ([]string, bool, error) {
	a := r.a
	if a.DType.Kind != 'O' {
		return nil, false, unsupported("%s elements are not variable length", a.DType.Name)
	}
	if len(r.filters) == 0 || !r.filters[0].object {
		return nil, false, unsupported("object array without vlen-utf8, vlen-bytes or json2 as its first filter")
	}
	key, _, _ := r.key(coord)
	src, err := readBlob(ctx, a.store, key, min(a.limits.MaxChunkBytes, b.left))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: %w", key, err)
	}
	data := src
	if r.compressor.decode != nil {
		if data, err = r.compressor.decode(src, b.max()); err != nil {
			return nil, false, fmt.Errorf("chunk %s: %s: %w", key, r.compressor.id, err)
		}
	}
	for i := len(r.filters) - 1; i >= 1; i-- {
		f := r.filters[i]
		if f.object {
			return nil, false, unsupported("object filter %q after the first", f.id)
		}
		if data, err = f.decode(data, b.max()); err != nil {
			return nil, false, fmt.Errorf("chunk %s: filter %s: %w", key, f.id, err)
		}
	}
	if err := b.take(int64(len(data)), "chunk "+key); err != nil {
		return nil, false, err
	}
	s, err := objectStrings(r.filters[0].id, data, prod(a.ChunkShape), fill)
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: filter %s: %w", key, r.filters[0].id, err)
	}
	if a.Order == "F" && len(a.ChunkShape) > 1 {
		order := make([]int, len(a.ChunkShape))
		for i := range order {
			order[i] = len(order) - 1 - i
		}
		s = untranspose(s, a.ChunkShape, order, 1)
	}
	return s, true, nil
}

// readStrings reads a Zarr v3 chunk of strings, or an inner chunk of a
// sharded array.
func (r *zarr3Reader) readStrings(ctx context.Context, coord []int64, fill string, b *budget) ([]string, bool, error) {
	a := r.a
	key, inner, _ := r.key(coord)
	if sh := r.chain.shard; sh != nil && len(r.chain.bb) == 0 && len(r.chain.aa) == 0 {
		raw, found, err := sh.readInner(ctx, a.store, key, inner, r.shards, a.limits)
		if err != nil || !found {
			return nil, false, err
		}
		s, err := sh.chain.decodeStrings(raw, a.ChunkShape, fill, b)
		if err != nil {
			return nil, false, fmt.Errorf("shard %s, inner chunk %v: %w", key, inner, err)
		}
		return s, true, nil
	}
	src, err := readBlob(ctx, a.store, key, min(a.limits.MaxChunkBytes, b.left))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: %w", key, err)
	}
	shape := a.ChunkShape
	if a.ShardShape != nil {
		shape = a.ShardShape
	}
	s, err := r.chain.decodeStrings(src, shape, fill, b)
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: %w", key, err)
	}
	if a.ShardShape != nil {
		out := make([]string, prod(a.ChunkShape))
		lo := make([]int64, len(inner))
		for i := range inner {
			lo[i] = inner[i] * a.ChunkShape[i]
		}
		copyBox(out, a.ChunkShape, make([]int64, len(lo)), s, a.ShardShape, lo, a.ChunkShape, 1)
		s = out
	}
	return s, true, nil
}

// decodeStrings runs the chain backwards over src, one chunk of shape
// whose array->bytes codec is vlen-utf8, vlen-bytes or a shard of them,
// and returns its elements in C order.
func (c *chain) decodeStrings(src []byte, shape []int64, fill string, b *budget) ([]string, error) {
	enc, err := c.encodedShape(shape)
	if err != nil {
		return nil, err
	}
	data := src
	for i := len(c.bb) - 1; i >= 0; i-- {
		if data, err = c.bb[i].decode(data, b.max()); err != nil {
			return nil, fmt.Errorf("%s: %w", c.bb[i].id, err)
		}
	}
	var s []string
	switch {
	case c.vlen != "":
		if err := b.take(int64(len(data)), "chunk"); err != nil {
			return nil, err
		}
		if s, err = objectStrings(c.vlen, data, prod(enc), fill); err != nil {
			return nil, fmt.Errorf("%s: %w", c.vlen, err)
		}
	case c.shard != nil:
		if s, err = c.shard.decodeWholeStrings(data, enc, fill, b); err != nil {
			return nil, err
		}
	default:
		return nil, unsupported("%s elements without a vlen-utf8 or vlen-bytes codec", c.dt.Name)
	}
	for i := len(c.aa) - 1; i >= 0; i-- {
		ac := c.aa[i]
		if ac.order == nil {
			return nil, unsupported("codec %s on strings", ac.name)
		}
		in := make([]int64, len(enc))
		for j, o := range ac.order {
			in[o] = enc[j]
		}
		s = untranspose(s, in, ac.order, 1)
		enc = in
	}
	return s, nil
}

// decodeWholeStrings decodes a whole shard of strings held in memory.
func (sh *sharding) decodeWholeStrings(data []byte, shard []int64, fill string, b *budget) ([]string, error) {
	size := int64(len(data))
	if size < sh.indexSize {
		return nil, driver.Corruptf("shard of %d bytes, smaller than its %d-byte index", size, sh.indexSize)
	}
	at := size - sh.indexSize
	if sh.atStart {
		at = 0
	}
	idx, err := sh.decodeIndex(data[at:at+sh.indexSize], b.limitsFor())
	if err != nil {
		return nil, err
	}
	n := prod(shard)
	if err := b.take(n*stringHeader, "shard"); err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fill
	}
	zero := make([]int64, len(shard))
	lo := make([]int64, len(shard))
	var failed error
	forEachIndex(sh.cps, func(k int64, g []int64) {
		if failed != nil {
			return
		}
		off, cnt, ok, err := sh.entry(idx, k, size)
		if err != nil || !ok {
			failed = err
			return
		}
		chunk, err := sh.chain.decodeStrings(data[off:off+cnt], sh.inner, fill, b)
		if err != nil {
			failed = fmt.Errorf("inner chunk %v: %w", g, err)
			return
		}
		for i := range g {
			lo[i] = g[i] * sh.inner[i]
		}
		copyBox(out, shard, lo, chunk, sh.inner, zero, sh.inner, 1)
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

// limitsFor gives the Limits that index decoding may use.
func (b *budget) limitsFor() Limits {
	return Limits{MaxChunkBytes: b.maxChunk}
}

// encodedShape is the shape the array->bytes codec sees for a chunk of
// shape, after the array->array codecs.
func (c *chain) encodedShape(shape []int64) ([]int64, error) {
	enc := append([]int64(nil), shape...)
	for _, ac := range c.aa {
		if ac.order == nil {
			continue
		}
		if len(ac.order) != len(enc) || !isPerm(ac.order) {
			return nil, driver.Corruptf("transpose order %v for %d dimensions", ac.order, len(enc))
		}
		p := make([]int64, len(enc))
		for i, o := range ac.order {
			p[i] = enc[o]
		}
		enc = p
	}
	return enc, nil
}
