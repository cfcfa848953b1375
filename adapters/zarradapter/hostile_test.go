package zarradapter_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
	stdfstest "testing/fstest"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// A sharded array: shape [4], shard [4], inner chunks [1], raw bytes
// inside, bytes + crc32c index at the end.
const shardedMeta = `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"int16",
 "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},
 "chunk_key_encoding":{"name":"default"},"fill_value":7,
 "codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[1],
   "codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
   "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}]}`

// shard builds a shard from inner chunk payloads (nil = absent) and
// optional index overrides.
func shard(chunks [][]byte, override map[int][2]uint64) []byte {
	var data []byte
	index := make([]byte, 16*len(chunks))
	for i, c := range chunks {
		off, n := uint64(len(data)), uint64(len(c))
		if c == nil {
			off, n = ^uint64(0), ^uint64(0)
		}
		if o, ok := override[i]; ok {
			off, n = o[0], o[1]
		}
		binary.LittleEndian.PutUint64(index[16*i:], off)
		binary.LittleEndian.PutUint64(index[16*i+8:], n)
		data = append(data, c...)
	}
	sum := crc32.Checksum(index, crc32.MakeTable(crc32.Castagnoli))
	index = binary.LittleEndian.AppendUint32(index, sum)
	return append(data, index...)
}

func openMap(t testing.TB, files map[string]string) (*array.Node, error) {
	m := stdfstest.MapFS{}
	for k, v := range files {
		m[k] = &stdfstest.MapFile{Data: []byte(v)}
	}
	return array.Describe(context.Background(), array.FSTree(m), "zarr", ".", nil)
}

func TestShardIndex(t *testing.T) {
	ctx := context.Background()
	ok := shard([][]byte{{1, 0}, nil, {3, 0}, {4, 0}}, nil)
	n, err := openMap(t, map[string]string{"zarr.json": shardedMeta, "c/0": string(ok)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.Array.ReadAll(ctx, 0)
	if err != nil || string(b) != "\x01\x00\x07\x00\x03\x00\x04\x00" {
		t.Errorf("ReadAll = % x, %v; want 1, 7 (fill), 3, 4", b, err)
	}
	for name, bad := range map[string][]byte{
		"offset past the shard": shard([][]byte{{1, 0}, {2, 0}, {3, 0}, {4, 0}}, map[int][2]uint64{1: {1 << 40, 2}}),
		"length past the shard": shard([][]byte{{1, 0}, {2, 0}, {3, 0}, {4, 0}}, map[int][2]uint64{1: {2, ^uint64(0) - 1}}),
		"wrong inner size":      shard([][]byte{{1, 0}, {2, 0, 0}, {3, 0}, {4, 0}}, nil),
		"bad checksum":          append(shard([][]byte{{1, 0}, {2, 0}, {3, 0}, {4, 0}}, nil)[:40], make([]byte, 32)...),
		"shorter than index":    {1, 2, 3},
	} {
		n, err := openMap(t, map[string]string{"zarr.json": shardedMeta, "c/0": string(bad)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.Array.ReadAll(ctx, 0); !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: ReadAll error = %v, want ErrCorrupt", name, err)
		}
	}
}

func TestHostileMetadata(t *testing.T) {
	v2 := func(shape, chunks, extra string) string {
		return `{"zarr_format":2,"shape":` + shape + `,"chunks":` + chunks + `,"dtype":"<i8","compressor":null,"fill_value":0,"order":"C","filters":null` + extra + `}`
	}
	for name, c := range map[string]struct {
		files map[string]string
		want  error
	}{
		"shape overflows":             {map[string]string{".zarray": v2("[9223372036854775807, 9223372036854775807]", "[1, 1]", "")}, driver.ErrLimit},
		"huge chunk":                  {map[string]string{".zarray": v2("[10]", "[4611686018427387904]", "")}, driver.ErrLimit},
		"negative dimension":          {map[string]string{".zarray": v2("[-1]", "[1]", "")}, driver.ErrCorrupt},
		"zero chunk":                  {map[string]string{".zarray": v2("[4]", "[0]", "")}, driver.ErrCorrupt},
		"unknown compressor":          {map[string]string{".zarray": v2("[4]", "[4]", "")[:0] + `{"zarr_format":2,"shape":[4],"chunks":[4],"dtype":"<i2","compressor":{"id":"zfpy"},"fill_value":0,"order":"C","filters":null}`}, errors.ErrUnsupported},
		"unknown v3 codec":            {map[string]string{"zarr.json": `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"int16","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes"},{"name":"lz5"}]}`}, errors.ErrUnsupported},
		"unknown v3 key":              {map[string]string{"zarr.json": `{"zarr_format":3,"node_type":"group","surprise":1}`}, errors.ErrUnsupported},
		"structured dtype":            {map[string]string{".zarray": `{"zarr_format":2,"shape":[4],"chunks":[4],"dtype":[["a","<i2"]],"compressor":null,"fill_value":0,"order":"C","filters":null}`}, errors.ErrUnsupported},
		"bad codec configuration":     {map[string]string{"zarr.json": `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"int16","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":5}}]}`}, driver.ErrCorrupt},
		"bad transpose configuration": {map[string]string{"zarr.json": `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"int16","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"transpose","configuration":[0]},{"name":"bytes"}]}`}, driver.ErrCorrupt},
		"inner does not divide":       {map[string]string{"zarr.json": `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"int16","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[3],"codecs":[{"name":"bytes"}],"index_codecs":[{"name":"bytes"},{"name":"crc32c"}]}}]}`}, driver.ErrCorrupt},
	} {
		_, err := openMap(t, c.files)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Describe error = %v, want %v", name, err, c.want)
		}
	}
}

func TestHostileChunks(t *testing.T) {
	ctx := context.Background()
	meta := `{"zarr_format":2,"shape":[4],"chunks":[4],"dtype":"<i2","compressor":{"id":"blosc"},"fill_value":0,"order":"C","filters":null}`
	// A memcpyed blosc frame claiming 1000 bytes, for an 8-byte chunk.
	frame := []byte{2, 1, 0x02, 2, 0xe8, 3, 0, 0, 0xe8, 3, 0, 0, 0xf8, 3, 0, 0}
	frame = append(frame, make([]byte, 1000)...)
	n, err := openMap(t, map[string]string{".zarray": meta, "0": string(frame)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Array.ReadAll(ctx, 0); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("oversized blosc chunk: error = %v, want ErrCorrupt", err)
	}
	// Variable-length strings have no raw form.
	n, err = openMap(t, map[string]string{"zarr.json": `{"zarr_format":3,"node_type":"array","shape":[2],"data_type":"string","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"default"},"fill_value":"","codecs":[{"name":"vlen-utf8"}]}`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Array.ReadAll(ctx, 0); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("vlen ReadAll error = %v, want ErrUnsupported", err)
	}
}

// FuzzShard reads every inner chunk of a fuzzed shard: errors are fine,
// panics and unbounded allocations are not.
func FuzzShard(f *testing.F) {
	f.Add(shard([][]byte{{1, 0}, nil, {3, 0}, {4, 0}}, nil))
	f.Add(shard([][]byte{{1, 0}, {2, 0}, {3, 0}, {4, 0}}, map[int][2]uint64{2: {1 << 62, 1 << 62}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m := stdfstest.MapFS{"zarr.json": {Data: []byte(shardedMeta)}, "c/0": {Data: b}}
		lim := &vfs.Limits{MaxChunk: 1 << 20}
		n, err := array.Describe(context.Background(), array.FSTree(m), "zarr3", ".", lim)
		if err != nil {
			t.Fatal(err)
		}
		out, err := n.Array.ReadAll(context.Background(), 1<<10)
		if err == nil && len(out) != 8 {
			t.Fatalf("ReadAll = %d bytes, want 8", len(out))
		}
	})
}
