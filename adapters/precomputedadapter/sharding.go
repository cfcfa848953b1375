package precomputedadapter

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs/driver"
)

// ShardingType is the "@type" of the one sharding specification of
// precomputed volumes.
const ShardingType = "neuroglancer_uint64_sharded_v1"

// sharding is a scale's "sharding" specification
// (neuroglancer_uint64_sharded_v1).
type sharding struct {
	preshift      uint // low bits of a chunk id that do not enter the hash
	murmur        bool // hash murmurhash3_x86_128; identity otherwise
	minishardBits uint
	shardBits     uint
	gzipIndex     bool // minishard_index_encoding gzip
	gzipData      bool // data_encoding gzip
}

// parseSharding reads a sharding specification. Malformed members give
// an error matching driver.ErrCorrupt; a hash or encoding it does not
// know, array.ErrUnsupported.
func parseSharding(raw json.RawMessage) (*sharding, error) {
	var s struct {
		Type          string `json:"@type"`
		PreshiftBits  *int   `json:"preshift_bits"`
		Hash          string `json:"hash"`
		MinishardBits *int   `json:"minishard_bits"`
		ShardBits     *int   `json:"shard_bits"`
		IndexEncoding string `json:"minishard_index_encoding"`
		DataEncoding  string `json:"data_encoding"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, driver.Corruptf("sharding: %v", err)
	}
	if s.Type != ShardingType {
		return nil, array.Unsupported("sharding @type %q (pipefs reads %s)", s.Type, ShardingType)
	}
	if s.PreshiftBits == nil || s.MinishardBits == nil || s.ShardBits == nil {
		return nil, driver.Corruptf("sharding: preshift_bits, minishard_bits and shard_bits are required")
	}
	p, m, b := *s.PreshiftBits, *s.MinishardBits, *s.ShardBits
	if p < 0 || p > 64 || m < 0 || m > 60 || b < 0 || b > 64-m {
		return nil, driver.Corruptf("sharding: preshift_bits %d, minishard_bits %d, shard_bits %d out of range", p, m, b)
	}
	sh := &sharding{preshift: uint(p), minishardBits: uint(m), shardBits: uint(b)}
	switch s.Hash {
	case "identity":
	case "murmurhash3_x86_128":
		sh.murmur = true
	default:
		return nil, array.Unsupported("sharding hash %q (pipefs reads identity and murmurhash3_x86_128)", s.Hash)
	}
	var err error
	if sh.gzipIndex, err = shardEncoding("minishard_index_encoding", s.IndexEncoding); err != nil {
		return nil, err
	}
	if sh.gzipData, err = shardEncoding("data_encoding", s.DataEncoding); err != nil {
		return nil, err
	}
	return sh, nil
}

// shardEncoding reports whether a sharding encoding member is gzip.
func shardEncoding(member, v string) (bool, error) {
	switch v {
	case "", "raw":
		return false, nil
	case "gzip":
		return true, nil
	}
	return false, array.Unsupported("sharding %s %q (pipefs reads raw and gzip)", member, v)
}

// mask returns a mask of the low n bits.
func mask(n uint) uint64 {
	if n == 0 {
		return 0
	}
	return ^uint64(0) >> (64 - n)
}

// locate returns the shard and the minishard of chunk id.
func (s *sharding) locate(id uint64) (shard, minishard uint64) {
	h := id >> s.preshift // 0 for a preshift of 64
	if s.murmur {
		h = murmurChunkID(h)
	}
	return (h >> s.minishardBits) & mask(s.shardBits), h & mask(s.minishardBits)
}

// shardKey returns the name of a shard's file: its number in lowercase
// hexadecimal, zero padded to ceil(shard_bits/4) digits, then ".shard".
func (s *sharding) shardKey(shard uint64) string {
	return fmt.Sprintf("%0*x.shard", int(s.shardBits+3)/4, shard)
}

// indexSize is the size of a shard's index: 16 bytes a minishard.
func (s *sharding) indexSize() int64 { return 16 << s.minishardBits }

// shardIndex is a decoded shard index: for each minishard the byte range
// [start, end) of its minishard index, relative to the end of the shard
// index.
type shardIndex []uint64

// decodeShardIndex decodes the shard index of a shard of size bytes.
// Ranges that lie past the shard's end or end before they start are
// checked when used (minishard).
func decodeShardIndex(b []byte, minishards int64) (shardIndex, error) {
	if int64(len(b)) != 16*minishards {
		return nil, driver.Corruptf("shard index of %d bytes, want %d", len(b), 16*minishards)
	}
	idx := make(shardIndex, 2*minishards)
	for i := range idx {
		idx[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return idx, nil
}

// minishard returns the absolute byte range of minishard m's index in a
// shard of size bytes whose index is indexSize bytes; n is 0 for an empty
// minishard.
func (idx shardIndex) minishard(m uint64, indexSize, size int64) (off, n int64, err error) {
	start, end := idx[2*m], idx[2*m+1]
	avail := uint64(size - indexSize)
	if end < start || end > avail {
		return 0, 0, driver.Corruptf("shard index: minishard %d at [%d, %d) lies outside the %d bytes after the index", m, start, end, avail)
	}
	return indexSize + int64(start), int64(end - start), nil
}

// minishardEntry is where one chunk lies: Len bytes at Off of the shard.
type minishardEntry struct {
	ID       uint64
	Off, Len int64
}

// decodeMinishardIndex decodes a minishard index (gunzipped already): the
// [3, n] uint64le array of delta-coded chunk ids, delta-coded offsets
// (each from the end of the chunk before, the first from the end of the
// shard index, indexSize) and sizes. Every chunk must lie within a shard
// of size bytes. The entries are returned sorted by id.
func decodeMinishardIndex(b []byte, indexSize, size int64) ([]minishardEntry, error) {
	if len(b)%24 != 0 {
		return nil, driver.Corruptf("minishard index of %d bytes, not a multiple of 24", len(b))
	}
	n := len(b) / 24
	out := make([]minishardEntry, n)
	var id uint64
	pos := uint64(indexSize)
	for i := range out {
		id += binary.LittleEndian.Uint64(b[8*i:])
		delta := binary.LittleEndian.Uint64(b[8*(n+i):])
		length := binary.LittleEndian.Uint64(b[8*(2*n+i):])
		if delta > uint64(size) || pos+delta > uint64(size) || length > uint64(size)-(pos+delta) {
			return nil, driver.Corruptf("minishard index: chunk %d at [+%d, +%d) lies past the shard's %d bytes", id, delta, length, size)
		}
		pos += delta
		out[i] = minishardEntry{ID: id, Off: int64(pos), Len: int64(length)}
		pos += length
	}
	slices.SortStableFunc(out, func(a, b minishardEntry) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out, nil
}

// find returns the entry of chunk id in a sorted minishard index.
func find(entries []minishardEntry, id uint64) (minishardEntry, bool) {
	i, ok := slices.BinarySearchFunc(entries, id, func(e minishardEntry, id uint64) int {
		switch {
		case e.ID < id:
			return -1
		case e.ID > id:
			return 1
		}
		return 0
	})
	if !ok {
		return minishardEntry{}, false
	}
	return entries[i], true
}

// gunzipIndex decodes a gzip minishard index of at most max bytes.
func gunzipIndex(b []byte, max int64) ([]byte, error) {
	out, err := arraycodec.Gzip(b, int(min(max, 1<<62)))
	if err != nil {
		return nil, fmt.Errorf("minishard index: %w", err)
	}
	return out, nil
}
