package precomputedadapter

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// TestMurmur checks MurmurHash3_x86_128 of 8-byte values against the
// values of TensorStore's murmurhash3_test.cc (computed there with
// pymmh3): seeds 0, 1 and 2 set all four words.
func TestMurmur(t *testing.T) {
	for _, c := range []struct {
		in   uint64
		seed uint32
		h0   uint32
		h1   uint32
	}{
		{0, 0, 0xe028ae41, 0x4772b084},
		{0, 1, 0x5ad58a7e, 0x54337108},
		{0, 2, 0x64010da2, 0x62e8bc17},
		{1, 0, 0x16d4ce9a, 0xe8bd67d6},
		{1, 1, 0x4b7ab8c6, 0xeb555955},
		{1, 2, 0xeb2301be, 0x48e12494},
		{42, 0, 0x5119f47a, 0xc20b94f9},
		{42, 1, 0xd6b51bca, 0xa25ad86b},
		{42, 2, 0x2d83d9c7, 0x082115eb},
	} {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], c.in)
		h := murmur3x86_128(b[:], c.seed)
		if h != [4]uint32{c.h0, c.h1, c.h1, c.h1} {
			t.Errorf("murmur(%d, seed %d) = %#x", c.in, c.seed, h)
		}
	}
	if got := murmurChunkID(42); got != 0xc20b94f9_5119f47a {
		t.Errorf("murmurChunkID(42) = %#x", got)
	}
}

// TestMorton checks the compressed Morton code against TensorStore's
// metadata_test.cc (GetCompressedZIndexBitsTest, EncodeCompressedZIndexTest).
func TestMorton(t *testing.T) {
	if got := mortonBits([3]int64{(79 + 19) / 20, (80 + 19) / 20, (144 + 11) / 12}); got != [3]int{2, 2, 4} {
		t.Errorf("mortonBits = %v, want [2 2 4]", got)
	}
	if got := mortonBits([3]int64{0, 0xffffffff, 1<<62 - 2}); got != [3]int{0, 32, 62} {
		t.Errorf("mortonBits = %v, want [0 32 62]", got)
	}
	bits := [3]int{4, 2, 1}
	for _, c := range []struct {
		g    [3]int64
		want uint64
	}{
		{[3]int64{0, 0, 0}, 0},
		{[3]int64{1, 0, 0}, 1},
		{[3]int64{0, 1, 0}, 2},
		{[3]int64{0b10, 0b0, 0b1}, 0b1100},
		{[3]int64{0b10, 0b11, 0b0}, 0b11010},
		{[3]int64{0b1001, 0b10, 0b1}, 0b1010101},
	} {
		if got := compressedMorton(c.g, bits); got != c.want {
			t.Errorf("compressedMorton(%v) = %#b, want %#b", c.g, got, c.want)
		}
	}
}

func words(w ...uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func u64s(b []byte) []uint64 {
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// TestCompressedSegmentationVectors decodes the encoded channels of
// TensorStore's neuroglancer_compressed_segmentation_test.cc and checks
// its error cases. TensorStore's shapes are [z, y, x]; ours [x, y, z].
func TestCompressedSegmentationVectors(t *testing.T) {
	one := func(ch []byte) []byte { return append(words(1), ch...) }
	// EncodeChannelTest.Basic: [z, y, x] 2x2x2, block 1x2x2.
	basic := words(5|2<<24, 4, 12|1<<24, 11, 0b01100001, 3, 0, 4, 0, 5, 0, 0b1110, 1, 0, 3, 0)
	got, err := decodeCompressedSegmentation(one(basic), 1, [3]int64{2, 2, 2}, [3]int64{2, 2, 1}, 8)
	if err != nil || !equal64(u64s(got), 4, 3, 5, 4, 1, 3, 3, 3) {
		t.Errorf("Basic: %v %v", u64s(got), err)
	}
	// EncodeChannelTest.BasicCached: [z, y, x] 4x2x2, blocks sharing tables.
	cached := words(9|2<<24, 8, 16|1<<24, 15, 16|1<<24, 20, 9|2<<24, 21,
		0b01100001, 3, 0, 4, 0, 5, 0, 0b1110, 1, 0, 3, 0, 0b00000001, 0b01001010)
	got, err = decodeCompressedSegmentation(one(cached), 1, [3]int64{2, 2, 4}, [3]int64{2, 2, 1}, 8)
	if err != nil || !equal64(u64s(got), 4, 3, 5, 4, 1, 3, 3, 3, 3, 1, 1, 1, 5, 5, 3, 4) {
		t.Errorf("BasicCached: %v %v", u64s(got), err)
	}
	// EncodeChannelTest.BasicCachedZeroBitsAtEnd.
	zero := words(8, 8, 8, 10, 8, 10, 8, 10, 3, 0)
	got, err = decodeCompressedSegmentation(one(zero), 1, [3]int64{2, 2, 4}, [3]int64{2, 2, 1}, 8)
	if err != nil || !equal64(u64s(got), 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3) {
		t.Errorf("BasicCachedZeroBitsAtEnd: %v %v", u64s(got), err)
	}
	// EncodeChannelTest.BasicCached32: uint32.
	cached32 := words(9|2<<24, 8, 13|1<<24, 12, 13|1<<24, 15, 9|2<<24, 16,
		0b01100001, 3, 4, 5, 0b1110, 1, 3, 0b00000001, 0b01001010)
	got, err = decodeCompressedSegmentation(one(cached32), 1, [3]int64{2, 2, 4}, [3]int64{2, 2, 1}, 4)
	if err != nil || !equal32(u32s(got), 4, 3, 5, 4, 1, 3, 3, 3, 3, 1, 1, 1, 5, 5, 3, 4) {
		t.Errorf("BasicCached32: %v %v", u32s(got), err)
	}
	// EncodeBlockTest.SizeMismatch: a 2x2 volume in a 3x2 block.
	mismatch := words(3|1<<24, 2, 0b001001, 3, 0, 4, 0)
	got, err = decodeCompressedSegmentation(one(mismatch), 1, [3]int64{2, 2, 1}, [3]int64{3, 2, 1}, 8)
	if err != nil || !equal64(u64s(got), 4, 3, 4, 3) {
		t.Errorf("SizeMismatch: %v %v", u64s(got), err)
	}
	// DecodeChannelTest.EncodedBits32.
	got, err = decodeCompressedSegmentation(one(words(4|32<<24, 2, 0, 1, 10, 20)), 1, [3]int64{2, 1, 1}, [3]int64{2, 1, 1}, 4)
	if err != nil || !equal32(u32s(got), 10, 20) {
		t.Errorf("EncodedBits32: %v %v", u32s(got), err)
	}
	// EncodeChannelsTest.Basic1Channel1Block: the multi-channel bytes.
	multi := []byte{
		1, 0, 0, 0,
		3, 0, 0, 1, 2, 0, 0, 0,
		0b0101, 0, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 0,
		4, 0, 0, 0,
		0, 0, 0, 0,
	}
	got, err = decodeCompressedSegmentation(multi, 1, [3]int64{2, 2, 1}, [3]int64{2, 2, 1}, 8)
	if err != nil || !equal64(u64s(got), 4, 0, 4, 0) {
		t.Errorf("Basic1Channel1Block: %v %v", u64s(got), err)
	}
	// Two channels: the same channel twice.
	two := append(words(2, 2+uint32(len(basic)/4)), append(basic, basic...)...)
	got, err = decodeCompressedSegmentation(two, 2, [3]int64{2, 2, 2}, [3]int64{2, 2, 1}, 8)
	if err != nil || !equal64(u64s(got), 4, 3, 5, 4, 1, 3, 3, 3, 4, 3, 5, 4, 1, 3, 3, 3) {
		t.Errorf("two channels: %v %v", u64s(got), err)
	}

	// The DecodeChannelTest errors.
	for name, in := range map[string][]byte{
		"SizeNotMultipleOf4":        one(basic)[:len(one(basic))-1],
		"Truncated":                 one(basic)[:len(one(basic))-4],
		"NonPowerOf2EncodedBits":    one(words(5|3<<24, 4, 12|1<<24, 11, 0b01100001, 3, 0, 4, 0, 5, 0, 0b1110, 1, 0, 3, 0)),
		"MoreThan32EncodedBits":     one(words(5|33<<24, 4, 12|1<<24, 11, 0b01100001, 3, 0, 4, 0, 5, 0, 0b1110, 1, 0, 3, 0)),
		"MissingBlockHeaders":       one(words(5|3<<24, 4, 12|1<<24)),
		"InvalidEncodedValueOffset": one(words(5|2<<24, 16, 12|1<<24, 11, 0b01100001, 3, 0, 4, 0, 5, 0, 0b1110, 1, 0, 3, 0)),
		"InvalidTableOffset":        one(words(16|2<<24, 4, 12|1<<24, 11, 0b01100001, 3, 0, 4, 0, 5, 0, 0b1110, 1, 0, 3, 0)),
		"MissingEncodedValues":      one(words(5|2<<24, 4, 0|1<<24, 11, 0b01100001, 3, 0, 4, 0, 5, 0)),
		"ChannelOffsetPastEnd":      append(words(99), basic...),
		"NoChannelHeader":           nil,
	} {
		_, err := decodeCompressedSegmentation(in, 1, [3]int64{2, 2, 2}, [3]int64{2, 2, 1}, 8)
		if !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
}

func equal64(got []uint64, want ...uint64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func equal32(got []uint32, want ...uint32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// encodeMinishard writes a minishard index as the sharded format does.
func encodeMinishard(entries []minishardEntry, indexSize int64) []byte {
	n := len(entries)
	b := make([]byte, 24*n)
	var prevID uint64
	prevEnd := indexSize
	for i, e := range entries {
		binary.LittleEndian.PutUint64(b[8*i:], e.ID-prevID)
		binary.LittleEndian.PutUint64(b[8*(n+i):], uint64(e.Off-prevEnd))
		binary.LittleEndian.PutUint64(b[8*(2*n+i):], uint64(e.Len))
		prevID, prevEnd = e.ID, e.Off+e.Len
	}
	return b
}

// TestMinishardIndex decodes the minishard indexes of TensorStore's
// uint64_sharded_decoder_test.cc (entries [id, start, end) relative to the
// end of the shard index), raw and gzip, and its invalid ones.
func TestMinishardIndex(t *testing.T) {
	const ix = 32
	for _, entries := range [][]minishardEntry{
		nil,
		{{ID: 0x0123456789abcdef, Off: ix + 0x11, Len: 0x23 - 0x11}},
		{{ID: 1, Off: ix + 3, Len: 7}, {ID: 7, Off: ix + 12, Len: 3}},
	} {
		raw := encodeMinishard(entries, ix)
		got, err := decodeMinishardIndex(raw, ix, 1000)
		if err != nil || len(got) != len(entries) {
			t.Fatalf("%v: %v %v", entries, got, err)
		}
		for i := range got {
			if got[i] != entries[i] {
				t.Errorf("entry %d = %+v, want %+v", i, got[i], entries[i])
			}
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(raw)
		w.Close()
		un, err := gunzipIndex(z.Bytes(), 1<<20)
		if err != nil || !bytes.Equal(un, raw) {
			t.Errorf("gzip: %v", err)
		}
	}
	// InvalidSizeRaw, and a chunk past the shard's end.
	if _, err := decodeMinishardIndex([]byte("abc"), ix, 1000); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("abc: %v", err)
	}
	past := encodeMinishard([]minishardEntry{{ID: 3, Off: ix + 990, Len: 20}}, ix)
	if _, err := decodeMinishardIndex(past, ix, 1000); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("past the end: %v", err)
	}
	if _, err := gunzipIndex([]byte("abc"), 1<<20); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("InvalidGzip: %v", err)
	}
	// A minishard range that ends before it starts, or past the shard.
	idx := shardIndex{5, 3, 0, 2000}
	for m := range uint64(2) {
		if _, _, err := idx.minishard(m, 32, 1000); !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("minishard %d: %v", m, err)
		}
	}
}

// TestParseSharding checks the sharding specifications TensorStore's
// uint64_sharded_test.cc accepts and refuses.
func TestParseSharding(t *testing.T) {
	ok := `{"@type":"neuroglancer_uint64_sharded_v1","hash":"murmurhash3_x86_128","preshift_bits":1,"minishard_bits":2,"shard_bits":3,"data_encoding":"gzip"}`
	sh, err := parseSharding([]byte(ok))
	if err != nil || !sh.murmur || sh.gzipIndex || !sh.gzipData || sh.preshift != 1 || sh.minishardBits != 2 || sh.shardBits != 3 {
		t.Errorf("%+v %v", sh, err)
	}
	if k := sh.shardKey(5); k != "5.shard" {
		t.Errorf("shardKey = %q", k)
	}
	sh.shardBits = 9
	if k := sh.shardKey(5); k != "005.shard" {
		t.Errorf("shardKey = %q", k)
	}
	for _, bad := range []string{
		`{"@type":"neuroglancer_uint64_sharded_v2","hash":"identity","preshift_bits":1,"minishard_bits":2,"shard_bits":3}`,
		`{"@type":"neuroglancer_uint64_sharded_v1","hash":"invalid_hash","preshift_bits":1,"minishard_bits":2,"shard_bits":3}`,
		`{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","preshift_bits":1,"minishard_bits":2,"shard_bits":3,"data_encoding":"invalid_encoding"}`,
		`{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","preshift_bits":65,"minishard_bits":2,"shard_bits":3}`,
		`{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","preshift_bits":1,"minishard_bits":61,"shard_bits":0}`,
		`{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","preshift_bits":1,"minishard_bits":7,"shard_bits":58}`,
		`{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","minishard_bits":2,"shard_bits":3}`,
		`"invalid"`,
	} {
		if _, err := parseSharding([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	for _, good := range []string{
		`{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","preshift_bits":64,"minishard_bits":60,"shard_bits":4}`,
		`{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","preshift_bits":0,"minishard_bits":7,"shard_bits":57}`,
	} {
		if _, err := parseSharding([]byte(good)); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}
