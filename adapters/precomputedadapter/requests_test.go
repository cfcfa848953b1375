package precomputedadapter_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// shardedVolume lays out a raw uint16 volume of size ([x, y, z]) in
// chunks of chunk, sharded with the identity hash (preshift 0), as
// neuroglancer's sharded.md describes: per shard, the shard index, then
// for each minishard its chunks and its index. Chunk ids are compressed
// Morton codes (here the grid's sides are powers of two, so plain Morton
// codes). Voxel (x, y, z) holds x + 7y + 13z (mod 2^16).
func shardedVolume(size, chunk [3]int, minishardBits, shardBits uint) map[string][]byte {
	var grid, nb [3]int
	for i := range grid {
		grid[i] = size[i] / chunk[i]
		for 1<<nb[i] < grid[i] {
			nb[i]++
		}
	}
	type entry struct {
		id   uint64
		data []byte
	}
	shards := map[uint64]map[uint64][]entry{}
	for gz := 0; gz < grid[2]; gz++ {
		for gy := 0; gy < grid[1]; gy++ {
			for gx := 0; gx < grid[0]; gx++ {
				g := [3]int{gx, gy, gz}
				var id uint64
				j := 0
				for i := 0; i < max(nb[0], nb[1], nb[2]); i++ {
					for d := 0; d < 3; d++ {
						if i < nb[d] {
							id |= uint64(g[d]>>i&1) << j
							j++
						}
					}
				}
				data := make([]byte, 0, 2*chunk[0]*chunk[1]*chunk[2])
				for z := 0; z < chunk[2]; z++ {
					for y := 0; y < chunk[1]; y++ {
						for x := 0; x < chunk[0]; x++ {
							v := (gx*chunk[0] + x) + 7*(gy*chunk[1]+y) + 13*(gz*chunk[2]+z)
							data = binary.LittleEndian.AppendUint16(data, uint16(v))
						}
					}
				}
				mini, shard := id&(1<<minishardBits-1), id>>minishardBits&(1<<shardBits-1)
				if shards[shard] == nil {
					shards[shard] = map[uint64][]entry{}
				}
				shards[shard][mini] = append(shards[shard][mini], entry{id, data})
			}
		}
	}
	files := map[string][]byte{}
	for shard, minis := range shards {
		index := make([]byte, 16<<minishardBits)
		var body []byte
		for mini := uint64(0); mini < 1<<minishardBits; mini++ {
			es := minis[mini]
			n := len(es)
			ix := make([]byte, 24*n)
			var prevID, prevEnd uint64
			for i, e := range es {
				binary.LittleEndian.PutUint64(ix[8*i:], e.id-prevID)
				binary.LittleEndian.PutUint64(ix[8*(n+i):], uint64(len(body))-prevEnd)
				binary.LittleEndian.PutUint64(ix[8*(2*n+i):], uint64(len(e.data)))
				body = append(body, e.data...)
				prevID, prevEnd = e.id, uint64(len(body))
			}
			binary.LittleEndian.PutUint64(index[16*mini:], uint64(len(body)))
			body = append(body, ix...)
			binary.LittleEndian.PutUint64(index[16*mini+8:], uint64(len(body)))
		}
		files[fmt.Sprintf("vol/s0/%0*x.shard", int(shardBits+3)/4, shard)] = append(index, body...)
	}
	files["vol/info"] = fmt.Appendf(nil, `{"@type":"neuroglancer_multiscale_volume","type":"image","data_type":"uint16","num_channels":1,
	  "scales":[{"key":"s0","size":[%d,%d,%d],"chunk_sizes":[[%d,%d,%d]],"resolution":[1,1,1],"encoding":"raw",
	  "sharding":{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","preshift_bits":0,"minishard_bits":%d,"shard_bits":%d}}]}`,
		size[0], size[1], size[2], chunk[0], chunk[1], chunk[2], minishardBits, shardBits)
	return files
}

// TestShardRequests reads a sharded volume over HTTP and counts requests:
// a chunk of a minishard already indexed costs one request, its shard's
// index and its minishard's index are read once each, and a reopened
// pipeline with the same vfs.Cache reads no index again.
func TestShardRequests(t *testing.T) {
	ctx := context.Background()
	// 8x8x4 chunks of 32 KiB in 4 shards of 2 MiB, 8 minishards each.
	size, chunk := [3]int{256, 256, 64}, [3]int{32, 32, 16}
	srv := fstest.NewHTTPServer(t, shardedVolume(size, chunk, 3, 2))
	hopts := &httproot.Options{}
	hopts.Remote.Cache = cache.New(cache.Config{})
	o := &vfs.Options{Cache: vfs.NewCache(0), Schemes: map[string]any{"http": hopts}}
	url := srv.URL() + "/vol/|neuroglancer-precomputed:"
	open := func() (*array.Array, func()) {
		a, fsys, err := array.OpenArray(ctx, url, "s0", o)
		if err != nil {
			t.Fatal(err)
		}
		return a, func() { fsys.Close() }
	}
	voxel := func(a *array.Array, c []int64) {
		t.Helper()
		ch, err := a.ReadChunk(ctx, c)
		if err != nil || ch.Missing {
			t.Fatalf("chunk %v: %v (missing %v)", c, err, ch.Missing)
		}
		// Voxel (0, 0, 0) of the chunk.
		x, y, z := c[3]*a.ChunkShape[3], c[2]*a.ChunkShape[2], c[1]*a.ChunkShape[1]
		if got, want := binary.LittleEndian.Uint16(ch.Data), uint16(x+7*y+13*z); got != want {
			t.Fatalf("chunk %v: voxel %d, want %d", c, got, want)
		}
	}
	count := func(what string, f func()) int64 {
		srv.Reset()
		f()
		n := srv.Requests()
		t.Logf("%s: %d requests, %d bytes", what, n, srv.Bytes())
		return n
	}

	a, done := open()
	// Chunk ids interleave the bits of x, y, z (grid 8x8x4): cell [x, y, z]
	// = [0, 0, 0] is id 0, [0, 0, 2] id 32, [4, 0, 0] id 64, all in shard 0,
	// minishard 0 (the low 3 bits, then 2 bits of shard); [1, 0, 0] is id
	// 1, minishard 1 of shard 0.
	count("first chunk (shard index, minishard index, chunk)", func() { voxel(a, []int64{0, 0, 0, 0}) })
	if n := count("second chunk of the same minishard", func() { voxel(a, []int64{0, 2, 0, 0}) }); n != 1 {
		t.Errorf("a chunk of an indexed minishard cost %d requests, want 1:\n%s", n, srv.LogString())
	}
	if n := count("a chunk of another minishard of the shard", func() { voxel(a, []int64{0, 0, 0, 1}) }); n != 2 {
		t.Errorf("a chunk of a new minishard cost %d requests, want 2 (its index, the chunk):\n%s", n, srv.LogString())
	}
	done()

	// The same cache: the indexes are kept; only the files are opened again.
	a, done = open()
	n := count("reopened, a chunk of an indexed minishard", func() { voxel(a, []int64{0, 0, 0, 4}) })
	for _, r := range srv.Log() {
		if strings.HasSuffix(r.Path, ".shard") && strings.HasPrefix(r.Range, "bytes=0-") {
			t.Errorf("reopened: the shard index was read again: %v", r)
		}
	}
	if n != 2 {
		t.Errorf("reopened: a chunk of an indexed minishard cost %d requests, want 2 (opening the shard, the chunk):\n%s", n, srv.LogString())
	}
	done()

	// A whole read with a fresh cache: every index once, chunks in runs.
	o.Cache = vfs.NewCache(0)
	hopts.Remote.Cache = cache.New(cache.Config{})
	a, done = open()
	defer done()
	var all []byte
	count("ReadAll of 256 chunks in 4 shards, cold", func() {
		var err error
		if all, err = a.ReadAll(ctx, 0); err != nil {
			t.Fatal(err)
		}
	})
	for _, i := range []int64{0, 12345, int64(len(all)/2) - 1} {
		x, y, z := i%256, i/256%256, i/(256*256)
		if got := binary.LittleEndian.Uint16(all[2*i:]); got != uint16(x+7*y+13*z) {
			t.Fatalf("voxel %d = %d", i, got)
		}
	}
	if o.Cache.Len() != 4+4*8 {
		t.Errorf("cache holds %d entries, want 36 (4 shard indexes, 32 minishard indexes)", o.Cache.Len())
	}
}
