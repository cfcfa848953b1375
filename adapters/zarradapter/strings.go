package zarradapter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

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
	return nil, array.Unsupported("codec %q does not decode to strings", id)
}

// readStrings reads a Zarr v2 object chunk: the compressor, the byte
// filters in reverse, then the object filter, which must come first.
func (r *zarr2Reader) ReadStrings(ctx context.Context, coord []int64, fill string, b *array.Budget) ([]string, bool, error) {
	a := r.a
	if a.DType.Kind != 'O' {
		return nil, false, array.Unsupported("%s elements are not variable length", a.DType.Name)
	}
	if len(r.filters) == 0 || !r.filters[0].object {
		return nil, false, array.Unsupported("object array without vlen-utf8, vlen-bytes or json2 as its first filter")
	}
	key, _, _ := r.ChunkKey(coord)
	src, err := array.ReadFile(ctx, a.Store(), key, min(a.Limits().MaxChunk, b.Left()))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: %w", key, err)
	}
	data := src
	if r.compressor.decode != nil {
		if data, err = r.compressor.decode(src, b.Max()); err != nil {
			return nil, false, fmt.Errorf("chunk %s: %s: %w", key, r.compressor.id, err)
		}
	}
	for i := len(r.filters) - 1; i >= 1; i-- {
		f := r.filters[i]
		if f.object {
			return nil, false, array.Unsupported("object filter %q after the first", f.id)
		}
		if data, err = f.decode(data, b.Max()); err != nil {
			return nil, false, fmt.Errorf("chunk %s: filter %s: %w", key, f.id, err)
		}
	}
	if err := b.Take(int64(len(data)), "chunk "+key); err != nil {
		return nil, false, err
	}
	s, err := objectStrings(r.filters[0].id, data, array.Prod(a.ChunkShape), fill)
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: filter %s: %w", key, r.filters[0].id, err)
	}
	if a.Order == "F" && len(a.ChunkShape) > 1 {
		order := make([]int, len(a.ChunkShape))
		for i := range order {
			order[i] = len(order) - 1 - i
		}
		s = array.Untranspose(s, a.ChunkShape, order, 1)
	}
	return s, true, nil
}

// readStrings reads a Zarr v3 chunk of strings, or an inner chunk of a
// sharded array.
func (r *zarr3Reader) ReadStrings(ctx context.Context, coord []int64, fill string, b *array.Budget) ([]string, bool, error) {
	a := r.a
	key, inner, _ := r.ChunkKey(coord)
	if sh := r.chain.shard; sh != nil && len(r.chain.bb) == 0 && len(r.chain.aa) == 0 {
		raw, found, err := sh.readInner(ctx, a.Store(), key, inner, r.shards, a.Limits())
		if err != nil || !found {
			return nil, false, err
		}
		s, err := sh.chain.decodeStrings(raw, a.ChunkShape, fill, b)
		if err != nil {
			return nil, false, fmt.Errorf("shard %s, inner chunk %v: %w", key, inner, err)
		}
		return s, true, nil
	}
	src, err := array.ReadFile(ctx, a.Store(), key, min(a.Limits().MaxChunk, b.Left()))
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
		out := make([]string, array.Prod(a.ChunkShape))
		lo := make([]int64, len(inner))
		for i := range inner {
			lo[i] = inner[i] * a.ChunkShape[i]
		}
		array.CopyBox(out, a.ChunkShape, make([]int64, len(lo)), s, a.ShardShape, lo, a.ChunkShape, 1)
		s = out
	}
	return s, true, nil
}

// decodeStrings runs the chain backwards over src, one chunk of shape
// whose array->bytes codec is vlen-utf8, vlen-bytes or a shard of them,
// and returns its elements in C order.
func (c *chain) decodeStrings(src []byte, shape []int64, fill string, b *array.Budget) ([]string, error) {
	enc, err := c.encodedShape(shape)
	if err != nil {
		return nil, err
	}
	data := src
	for i := len(c.bb) - 1; i >= 0; i-- {
		if data, err = c.bb[i].decode(data, b.Max()); err != nil {
			return nil, fmt.Errorf("%s: %w", c.bb[i].id, err)
		}
	}
	var s []string
	switch {
	case c.vlen != "":
		if err := b.Take(int64(len(data)), "chunk"); err != nil {
			return nil, err
		}
		if s, err = objectStrings(c.vlen, data, array.Prod(enc), fill); err != nil {
			return nil, fmt.Errorf("%s: %w", c.vlen, err)
		}
	case c.shard != nil:
		if s, err = c.shard.decodeWholeStrings(data, enc, fill, b); err != nil {
			return nil, err
		}
	default:
		return nil, array.Unsupported("%s elements without a vlen-utf8 or vlen-bytes codec", c.dt.Name)
	}
	for i := len(c.aa) - 1; i >= 0; i-- {
		ac := c.aa[i]
		if ac.order == nil {
			return nil, array.Unsupported("codec %s on strings", ac.name)
		}
		in := make([]int64, len(enc))
		for j, o := range ac.order {
			in[o] = enc[j]
		}
		s = array.Untranspose(s, in, ac.order, 1)
		enc = in
	}
	return s, nil
}

// decodeWholeStrings decodes a whole shard of strings held in memory.
func (sh *sharding) decodeWholeStrings(data []byte, shard []int64, fill string, b *array.Budget) ([]string, error) {
	size := int64(len(data))
	if size < sh.indexSize {
		return nil, driver.Corruptf("shard of %d bytes, smaller than its %d-byte index", size, sh.indexSize)
	}
	at := size - sh.indexSize
	if sh.atStart {
		at = 0
	}
	idx, err := sh.decodeIndex(data[at:at+sh.indexSize], vfs.Limits{MaxChunk: b.MaxChunk()})
	if err != nil {
		return nil, err
	}
	n := array.Prod(shard)
	if err := b.Take(n*array.StringHeader, "shard"); err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fill
	}
	zero := make([]int64, len(shard))
	lo := make([]int64, len(shard))
	var failed error
	array.ForEachIndex(sh.cps, func(k int64, g []int64) {
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
		array.CopyBox(out, shard, lo, chunk, sh.inner, zero, sh.inner, 1)
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
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
