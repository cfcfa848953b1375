package precomputedadapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"golang.org/x/sync/singleflight"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// shardedReader reads the chunks of a sharded scale: an
// array.ExtentReader, whose chunks are byte ranges of the shard files.
// The shard indexes and minishard indexes it reads are kept in a
// vfs.Cache, keyed by the volume, the shard's name and the shard's
// version, so that a chunk costs one read once its minishard is indexed.
type shardedReader struct {
	*scaleReader
	sh    *sharding
	zbits [3]int // bits of the compressed Morton code, [x, y, z]
	cache *vfs.Cache
	// vol names the volume's scale in cache keys: the input's vfs.Env.Key
	// and the scale's key, or, when the volume was described outside a
	// pipeline, this reader (nothing is shared with other descriptions).
	vol any
	// flight makes concurrent reads of one index fetch it once.
	flight singleflight.Group
}

var _ array.ExtentReader = (*shardedReader)(nil)

// indexKey keys a decoded index in the vfs.Cache: the shard index
// (minishard -1) or one minishard index of one version of a shard.
type indexKey struct {
	vol       any
	shard     string // the shard's file
	version   string // the shard's fingerprint, or its size and time
	minishard int64
}

// indexOverhead is what a cached index costs beyond its entries.
const indexOverhead = 128

// chunkID returns the chunk id of the chunk at coord ([c, z, y, x] grid):
// the compressed Morton code of its grid cell.
func (r *shardedReader) chunkID(coord []int64) uint64 {
	return compressedMorton([3]int64{coord[3], coord[2], coord[1]}, r.zbits)
}

// ChunkKey returns the shard file that holds the chunk at coord,
// "<shard>.shard" relative to the scale's directory, and as inner the
// chunk's id, [compressed Morton code] (read as an int64).
func (r *shardedReader) ChunkKey(coord []int64) (string, []int64, error) {
	if len(coord) != 4 || coord[0] != 0 {
		return "", nil, fmt.Errorf("precomputed chunk %v: %w", coord, fs.ErrInvalid)
	}
	id := r.chunkID(coord)
	shard, _ := r.sh.locate(id)
	return r.sh.shardKey(shard), []int64{int64(id)}, nil
}

// ChunkExtent finds the chunk at coord in its shard: the shard index, then
// its minishard's index (each read once, and kept in the cache).
func (r *shardedReader) ChunkExtent(ctx context.Context, coord []int64) (array.Extent, bool, error) {
	key, _, err := r.ChunkKey(coord)
	if err != nil {
		return array.Extent{}, false, err
	}
	if r.refused != nil {
		return array.Extent{}, false, fmt.Errorf("shard %s: %w", key, r.refused)
	}
	id := r.chunkID(coord)
	_, mini := r.sh.locate(id)
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
	entries, err := r.minishardIndex(ctx, b, key, mini)
	if err != nil {
		return array.Extent{}, false, fmt.Errorf("shard %s: %w", key, err)
	}
	e, ok := find(entries, id)
	if !ok {
		return array.Extent{}, false, nil
	}
	if e.Len > r.a.Limits().MaxChunk {
		return array.Extent{}, false, driver.Limitf("shard %s: chunk %d of %d bytes, more than Limits.MaxChunk (%d)", key, id, e.Len, r.a.Limits().MaxChunk)
	}
	return array.Extent{Object: key, Off: e.Off, Len: e.Len}, true, nil
}

// version names the version of the shard b: its fingerprint, or its size
// and modification time.
func version(b driver.Blob) string {
	if f, ok := b.(driver.Fingerprinter); ok {
		if v := f.Fingerprint(); v != "" {
			return v
		}
	}
	info := b.Stat()
	return strconv.FormatInt(info.Size(), 10) + "@" + strconv.FormatInt(info.ModTime().UnixNano(), 10)
}

// cached returns the index under k, or builds it with load (once, however
// many ask at once) and keeps it at the cost load gives.
func (r *shardedReader) cached(k indexKey, load func() (any, int64, error)) (any, error) {
	if v, ok := r.cache.Get(k); ok {
		return v, nil
	}
	fk := k.shard + "\x00" + k.version + "\x00" + strconv.FormatInt(k.minishard, 10)
	v, err, _ := r.flight.Do(fk, func() (any, error) {
		if v, ok := r.cache.Get(k); ok {
			return v, nil
		}
		v, cost, err := load()
		if err != nil {
			return nil, err
		}
		r.cache.Add(k, v, cost)
		return v, nil
	})
	return v, err
}

// shardIndex returns the index of shard b (at key).
func (r *shardedReader) shardIndex(ctx context.Context, b driver.Blob, key, ver string) (shardIndex, error) {
	v, err := r.cached(indexKey{r.vol, key, ver, -1}, func() (any, int64, error) {
		n := r.sh.indexSize()
		if lim := r.a.Limits().MaxChunk; n > lim {
			return nil, 0, driver.Limitf("shard index of %d bytes, more than Limits.MaxChunk (%d)", n, lim)
		}
		if size := b.Stat().Size(); size < n {
			return nil, 0, driver.Corruptf("%d bytes, shorter than its %d-byte index", size, n)
		}
		raw, err := readRange(ctx, b, 0, n)
		if err != nil {
			return nil, 0, err
		}
		idx, err := decodeShardIndex(raw, int64(1)<<r.sh.minishardBits)
		return idx, n + indexOverhead, err
	})
	if err != nil {
		return nil, err
	}
	return v.(shardIndex), nil
}

// minishardIndex returns the decoded index of minishard mini of shard b
// (at key).
func (r *shardedReader) minishardIndex(ctx context.Context, b driver.Blob, key string, mini uint64) ([]minishardEntry, error) {
	ver := version(b)
	v, err := r.cached(indexKey{r.vol, key, ver, int64(mini)}, func() (any, int64, error) {
		idx, err := r.shardIndex(ctx, b, key, ver)
		if err != nil {
			return nil, 0, err
		}
		size := b.Stat().Size()
		off, n, err := idx.minishard(mini, r.sh.indexSize(), size)
		if err != nil || n == 0 {
			return []minishardEntry(nil), indexOverhead, err
		}
		lim := r.a.Limits().MaxChunk
		if n > lim {
			return nil, 0, driver.Limitf("minishard %d index of %d bytes, more than Limits.MaxChunk (%d)", mini, n, lim)
		}
		raw, err := readRange(ctx, b, off, n)
		if err != nil {
			return nil, 0, err
		}
		if r.sh.gzipIndex {
			if raw, err = gunzipIndex(raw, lim); err != nil {
				return nil, 0, err
			}
		}
		entries, err := decodeMinishardIndex(raw, r.sh.indexSize(), size)
		if err != nil {
			return nil, 0, fmt.Errorf("minishard %d: %w", mini, err)
		}
		return entries, int64(len(entries))*24 + indexOverhead, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]minishardEntry), nil
}

// ReadExtent reads e's bytes of its shard with one request: it declares
// them (driver.Prefetch), so that a remote shard fetches them exactly.
func (r *shardedReader) ReadExtent(ctx context.Context, e array.Extent) ([]byte, error) {
	b, err := r.a.Store().OpenBlob(ctx, e.Object)
	if err != nil {
		return nil, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	raw, err := readRange(ctx, b, e.Off, e.Len)
	if err != nil {
		return nil, fmt.Errorf("shard %s: %w", e.Object, err)
	}
	return raw, nil
}

// DecodeChunk decodes a chunk from its stored bytes: gunzipped when the
// data_encoding is gzip, then in the scale's encoding.
func (r *shardedReader) DecodeChunk(_ context.Context, coord []int64, e array.Extent, stored []byte) ([]byte, error) {
	data, err := r.decodeStored(stored, coord)
	if err != nil {
		return nil, fmt.Errorf("shard %s, chunk %d: %w", e.Object, r.chunkID(coord), err)
	}
	return data, nil
}

func (r *shardedReader) decodeStored(stored []byte, coord []int64) ([]byte, error) {
	if r.sh.gzipData {
		var err error
		if stored, err = arraycodec.Gzip(stored, int(min(r.a.Limits().MaxChunk, 1<<62))); err != nil {
			return nil, err
		}
	}
	return r.decode(stored, coord)
}

// ReadChunk locates the chunk at coord, reads it with one request and
// decodes it.
func (r *shardedReader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	e, found, err := r.ChunkExtent(ctx, coord)
	if err != nil || !found {
		return nil, false, err
	}
	raw, err := r.ReadExtent(ctx, e)
	if err != nil {
		return nil, false, err
	}
	data, err := r.DecodeChunk(ctx, coord, e, raw)
	return data, err == nil, err
}

// readRange reads exactly n bytes at off of b, declaring them first
// (driver.Prefetch), so that a remote object fetches just them.
func readRange(ctx context.Context, b driver.Blob, off, n int64) ([]byte, error) {
	_ = driver.Prefetch(ctx, b, off, n) // a hint; a failure shows in the read
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
