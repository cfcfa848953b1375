package zarradapter

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// sharding is the sharding_indexed codec.
type sharding struct {
	inner     []int64 // inner chunk shape
	chain     *chain  // codecs of the inner chunks
	index     *chain  // index_codecs
	atStart   bool    // index_location "start"
	cps       []int64 // inner chunks per shard, per axis
	nchunks   int64
	indexSize int64 // encoded index bytes
}

func parseSharding(raw json.RawMessage, dt array.DType, lim vfs.Limits) (*sharding, error) {
	var c struct {
		ChunkShape    []int64           `json:"chunk_shape"`
		Codecs        []json.RawMessage `json:"codecs"`
		IndexCodecs   []json.RawMessage `json:"index_codecs"`
		IndexLocation string            `json:"index_location"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, driver.Corruptf("sharding_indexed: %v", err)
	}
	sh := &sharding{inner: c.ChunkShape}
	switch c.IndexLocation {
	case "", "end":
	case "start":
		sh.atStart = true
	default:
		return nil, driver.Corruptf("sharding_indexed: index_location %q", c.IndexLocation)
	}
	var err error
	if sh.chain, err = parseChain(c.Codecs, dt, lim); err != nil {
		return nil, fmt.Errorf("sharding_indexed codecs: %w", err)
	}
	u64, _ := array.Numeric("uint64")
	if c.IndexCodecs == nil {
		c.IndexCodecs = []json.RawMessage{json.RawMessage(`{"name":"bytes","configuration":{"endian":"little"}}`), json.RawMessage(`"crc32c"`)}
	}
	if sh.index, err = parseChain(c.IndexCodecs, u64, lim); err != nil {
		return nil, fmt.Errorf("sharding_indexed index_codecs: %w", err)
	}
	ix := sh.index
	if ix.shard != nil || ix.vlen != "" || len(ix.aa) > 0 {
		return nil, array.Unsupported("sharding_indexed: index codecs other than bytes and crc32c")
	}
	for _, b := range ix.bb {
		if b.id != "crc32c" {
			return nil, array.Unsupported("sharding_indexed: index codec %q (the index must have a fixed size)", b.id)
		}
	}
	return sh, nil
}

// setShape fixes the shard shape: the inner chunk grid, the index size,
// and those of nested shards.
func (sh *sharding) setShape(shard []int64, lim vfs.Limits) error {
	if len(sh.inner) != len(shard) {
		return driver.Corruptf("sharding: inner chunk shape %v for shard shape %v", sh.inner, shard)
	}
	sh.cps = make([]int64, len(shard))
	n := int64(1)
	for i := range shard {
		if sh.inner[i] <= 0 || shard[i]%sh.inner[i] != 0 {
			return driver.Corruptf("sharding: inner chunk shape %v does not divide %v", sh.inner, shard)
		}
		sh.cps[i] = shard[i] / sh.inner[i]
		n *= sh.cps[i] // <= prod(shard), which array.CheckGrid bounded
	}
	sh.nchunks = n
	if 16*n > lim.MaxChunk {
		return driver.Limitf("sharding: index of %d entries exceeds the chunk limit", n)
	}
	sh.indexSize = 16*n + 4*int64(len(sh.index.bb))
	if in := sh.chain.shard; in != nil {
		return in.setShape(sh.inner, lim)
	}
	return nil
}

const absent = ^uint64(0)

// decodeIndex decodes an encoded index into (offset, nbytes) pairs.
func (sh *sharding) decodeIndex(raw []byte, lim vfs.Limits) ([]uint64, error) {
	shape := append(append([]int64(nil), sh.cps...), 2)
	b, err := sh.index.decode(raw, shape, lim)
	if err != nil {
		return nil, fmt.Errorf("shard index: %w", err)
	}
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out, nil
}

// entry returns the byte range of inner chunk i of a shard of size bytes,
// and whether it is stored.
func (sh *sharding) entry(idx []uint64, i int64, size int64) (off, n int64, ok bool, err error) {
	o, c := idx[2*i], idx[2*i+1]
	if o == absent && c == absent {
		return 0, 0, false, nil
	}
	if o > uint64(size) || c > uint64(size)-o {
		return 0, 0, false, driver.Corruptf("shard index: inner chunk %d at [%d, +%d) lies past the shard's %d bytes", i, o, c, size)
	}
	return int64(o), int64(c), true, nil
}

// linear returns the C-order number of inner chunk coordinates.
func (sh *sharding) linear(inner []int64) int64 {
	var n int64
	for i, c := range inner {
		n = n*sh.cps[i] + c
	}
	return n
}

// readInner reads the encoded bytes of one inner chunk of the shard at
// key: the index (cached), then the chunk's range.
func (sh *sharding) readInner(ctx context.Context, t driver.Tree, key string, inner []int64, cache *indexCache, lim vfs.Limits) ([]byte, bool, error) {
	b, err := t.OpenBlob(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	off, n, found, err := sh.locate(ctx, b, key, inner, cache, lim)
	if err != nil || !found {
		return nil, false, err
	}
	raw, err := readRange(ctx, b, off, n)
	if err != nil {
		return nil, false, fmt.Errorf("shard %s: %w", key, err)
	}
	return raw, true, nil
}

// locate returns the byte range of the inner chunk at inner in the shard
// b (at key), from the shard's index (cached); found is false when the
// chunk is not stored.
func (sh *sharding) locate(ctx context.Context, b driver.Blob, key string, inner []int64, cache *indexCache, lim vfs.Limits) (off, n int64, found bool, err error) {
	size := b.Stat().Size()
	idx, ok := cache.get(key, size)
	if !ok {
		if size < sh.indexSize {
			return 0, 0, false, driver.Corruptf("shard %s: %d bytes, smaller than its %d-byte index", key, size, sh.indexSize)
		}
		at := size - sh.indexSize
		if sh.atStart {
			at = 0
		}
		raw, err := readRange(ctx, b, at, sh.indexSize)
		if err != nil {
			return 0, 0, false, fmt.Errorf("shard %s: %w", key, err)
		}
		if idx, err = sh.decodeIndex(raw, lim); err != nil {
			return 0, 0, false, fmt.Errorf("shard %s: %w", key, err)
		}
		cache.put(key, size, idx)
	}
	off, n, ok, err = sh.entry(idx, sh.linear(inner), size)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	if n > lim.MaxChunk {
		return 0, 0, false, driver.Limitf("shard %s: inner chunk of %d bytes exceeds the chunk limit", key, n)
	}
	return off, n, true, nil
}

// shardedReader is the zarr3Reader of an array of fixed-size elements
// whose codecs are one sharding_indexed codec: an array.ExtentReader, so
// that box reads fetch neighbouring inner chunks of a shard with one
// request.
type shardedReader struct{ *zarr3Reader }

var _ array.ExtentReader = shardedReader{}

// ChunkExtent finds the inner chunk at coord in its shard's index.
func (r shardedReader) ChunkExtent(ctx context.Context, coord []int64) (array.Extent, bool, error) {
	key, inner, _ := r.ChunkKey(coord)
	b, err := r.a.Store().OpenBlob(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return array.Extent{}, false, nil
	}
	if err != nil {
		return array.Extent{}, false, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	off, n, found, err := r.chain.shard.locate(ctx, b, key, inner, r.shards, r.a.Limits())
	return array.Extent{Object: key, Off: off, Len: n}, found, err
}

// ReadExtent reads e's bytes of its shard with one request: it declares
// them (driver.Prefetch), so that a remote shard fetches them exactly.
func (r shardedReader) ReadExtent(ctx context.Context, e array.Extent) ([]byte, error) {
	b, err := r.a.Store().OpenBlob(ctx, e.Object)
	if err != nil {
		return nil, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	_ = driver.Prefetch(ctx, b, e.Off, e.Len) // a hint; a failure shows in the read
	raw, err := readRange(ctx, b, e.Off, e.Len)
	if err != nil {
		return nil, fmt.Errorf("shard %s: %w", e.Object, err)
	}
	return raw, nil
}

// DecodeChunk decodes an inner chunk from its stored bytes.
func (r shardedReader) DecodeChunk(_ context.Context, coord []int64, e array.Extent, stored []byte) ([]byte, error) {
	data, err := r.chain.shard.chain.decode(stored, r.a.ChunkShape, r.a.Limits())
	if err != nil {
		_, inner, _ := r.ChunkKey(coord)
		return nil, fmt.Errorf("shard %s, inner chunk %v: %w", e.Object, inner, err)
	}
	return data, nil
}

// readRange reads exactly n bytes at off.
func readRange(ctx context.Context, b driver.Blob, off, n int64) ([]byte, error) {
	buf := make([]byte, n)
	got, err := b.ReadAt(ctx, buf, off)
	if int64(got) == n {
		return buf, nil
	}
	if err == nil || err == io.EOF {
		err = driver.Corruptf("short read: %d of %d bytes at %d", got, n, off)
	}
	return nil, err
}

// decodeWhole decodes a whole shard held in memory (a shard nested in
// another, or under bytes->bytes codecs) to its elements, C order.
func (sh *sharding) decodeWhole(data []byte, shard []int64, fill []byte, lim vfs.Limits) ([]byte, error) {
	size := int64(len(data))
	if size < sh.indexSize {
		return nil, driver.Corruptf("shard of %d bytes, smaller than its %d-byte index", size, sh.indexSize)
	}
	at := size - sh.indexSize
	if sh.atStart {
		at = 0
	}
	idx, err := sh.decodeIndex(data[at:at+sh.indexSize], lim)
	if err != nil {
		return nil, err
	}
	es := sh.chain.dt.Size
	out := array.FillBytes(fill, array.Prod(shard), es)
	zero := make([]int64, len(shard))
	lo := make([]int64, len(shard))
	var failed error
	array.ForEachIndex(sh.cps, func(n int64, g []int64) {
		if failed != nil {
			return
		}
		off, cnt, ok, err := sh.entry(idx, n, size)
		if err != nil || !ok {
			failed = err
			return
		}
		chunk, err := sh.chain.decode(data[off:off+cnt], sh.inner, lim)
		if err != nil {
			failed = fmt.Errorf("inner chunk %v: %w", g, err)
			return
		}
		for i := range g {
			lo[i] = g[i] * sh.inner[i]
		}
		array.CopyBox(out, shard, lo, chunk, sh.inner, zero, sh.inner, es)
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

// indexCache keeps decoded shard indexes, so that reading the inner chunks
// of one shard reads its index once. It holds at most maxCachedIndexes.
type indexCache struct {
	mu sync.Mutex
	m  map[string]cachedIndex
}

type cachedIndex struct {
	size int64
	idx  []uint64
}

const maxCachedIndexes = 256

func newIndexCache() *indexCache { return &indexCache{m: make(map[string]cachedIndex)} }

func (c *indexCache) get(key string, size int64) ([]uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || e.size != size {
		return nil, false
	}
	return e.idx, true
}

func (c *indexCache) put(key string, size int64, idx []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedIndexes {
		clear(c.m)
	}
	c.m[key] = cachedIndex{size, idx}
}
