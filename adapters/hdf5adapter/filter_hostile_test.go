package hdf5adapter

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zlib"

	"github.com/pipefs/pipefs/vfs/driver"
)

func filterZlib(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// filterTestCase returns the named case of the libhdf5 test data.
func filterTestCase(t *testing.T, name string) filterCase {
	t.Helper()
	for _, tc := range loadFilterCases(t) {
		if tc.Name == name {
			return tc
		}
	}
	t.Fatalf("no case %q in testdata/filters/cases.json", name)
	return filterCase{}
}

// filterAllocated returns the bytes f allocates.
func filterAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestDecodeChunkErrors(t *testing.T) {
	deflate := []Filter{{ID: filterDeflate}}
	bomb := filterZlib(t, make([]byte, 64<<20))
	fl := filterTestCase(t, "fletcher32_i4")
	badSum := bytes.Clone(fl.Chunks[0].Raw)
	badSum[3] ^= 0x40
	lz4Huge := binary.BigEndian.AppendUint64(nil, 1<<40)
	lz4Huge = binary.BigEndian.AppendUint32(lz4Huge, 1<<20)
	nbitHuge := []Filter{{ID: filterNbit, Values: []uint32{8, 0, 1 << 30, 1, 4, 0, 8, 0}}}
	so := filterTestCase(t, "scaleoffset_int4_lei2")
	sz := filterTestCase(t, "szip_nn8_u1")
	szipPipe := []Filter{{ID: filterSzip, Values: []uint32{169, 8, 8, 64}}}
	lz := filterTestCase(t, "lzo_table_small")
	lzSum := filterTestCase(t, "lzo_adler32")
	badAdler := bytes.Clone(lzSum.Chunks[0].Raw)
	badAdler[len(badAdler)-1] ^= 1
	nbitCompound := filterTestCase(t, "nbit_compound")
	deep := []uint32{0, 0, 1, nbitArray, 4}
	for i := 0; i < 1000; i++ {
		deep = append(deep, nbitArray, 4)
	}
	deep[0] = uint32(len(deep))
	tests := []struct {
		name       string
		pipeline   []Filter
		mask       uint32
		src        []byte
		chunkBytes int64
		want       error
		wantText   string
		maxAlloc   uint64
	}{
		{name: "deflate bomb", pipeline: deflate, src: bomb, chunkBytes: 4096, want: driver.ErrCorrupt, wantText: "more than the 4096 bytes the chunk can hold", maxAlloc: 1 << 20},
		{name: "deflate truncated", pipeline: deflate, src: filterZlib(t, []byte("hello, hello, hello"))[:8], chunkBytes: 19, want: driver.ErrCorrupt},
		{name: "deflate short", pipeline: deflate, src: filterZlib(t, []byte("hello")), chunkBytes: 6, want: driver.ErrCorrupt, wantText: "decodes to 5 bytes, want 6"},
		{name: "deflate not zlib", pipeline: deflate, src: []byte("not a zlib stream"), chunkBytes: 6, want: driver.ErrCorrupt},
		{name: "fletcher32 mismatch", pipeline: fl.Pipeline, src: badSum, chunkBytes: fl.ChunkBytes, want: driver.ErrCorrupt, wantText: "fletcher32: checksum"},
		{name: "fletcher32 short", pipeline: fl.Pipeline, src: []byte{1, 2}, chunkBytes: 0, want: driver.ErrCorrupt},
		{name: "lz4 huge size", pipeline: []Filter{{ID: filterLZ4}}, src: lz4Huge, chunkBytes: 4096, want: driver.ErrCorrupt, wantText: "header claims", maxAlloc: 1 << 16},
		{name: "lz4 truncated", pipeline: []Filter{{ID: filterLZ4}}, src: lz4Huge[:10], chunkBytes: 4096, want: driver.ErrCorrupt},
		{name: "nbit huge count", pipeline: nbitHuge, src: []byte{1, 2, 3}, chunkBytes: 4096, want: driver.ErrCorrupt, maxAlloc: 1 << 16},
		{name: "nbit truncated", pipeline: []Filter{{ID: filterNbit, Values: []uint32{8, 0, 4, 1, 4, 0, 17, 3}}}, src: []byte{1, 2, 3}, chunkBytes: 16, want: driver.ErrCorrupt, wantText: "packed data ends early"},
		{name: "nbit compound truncated", pipeline: nbitCompound.Pipeline, src: nbitCompound.Chunks[0].Raw[:20], chunkBytes: nbitCompound.ChunkBytes, want: driver.ErrCorrupt, wantText: "packed data ends early"},
		{name: "nbit deep nesting", pipeline: []Filter{{ID: filterNbit, Values: deep}}, src: make([]byte, 64), chunkBytes: 4, want: driver.ErrCorrupt, wantText: "nested more than"},
		{name: "nbit bad precision", pipeline: []Filter{{ID: filterNbit, Values: []uint32{8, 0, 4, 1, 4, 0, 30, 3}}}, src: make([]byte, 64), chunkBytes: 16, want: driver.ErrCorrupt},
		{name: "scaleoffset truncated", pipeline: so.Pipeline, src: so.Chunks[0].Raw[:len(so.Chunks[0].Raw)-8], chunkBytes: so.ChunkBytes, want: driver.ErrCorrupt},
		{name: "scaleoffset minbits", pipeline: so.Pipeline, src: append([]byte{99, 0, 0, 0}, make([]byte, 40)...), chunkBytes: so.ChunkBytes, want: driver.ErrCorrupt},
		{name: "lzf before start", pipeline: []Filter{{ID: filterLZF}}, src: []byte{0x20, 0x05}, chunkBytes: 8, want: driver.ErrCorrupt},
		{name: "lzf too long", pipeline: []Filter{{ID: filterLZF}}, src: []byte{0, 'a', 0xe0, 0xff, 0x00}, chunkBytes: 8, want: driver.ErrCorrupt, wantText: "more than the 8 bytes"},
		{name: "bitshuffle huge size", pipeline: []Filter{{ID: filterBitshuffle, Values: []uint32{0, 4, 4, 0, 2}}}, src: lz4Huge, chunkBytes: 4096, want: driver.ErrCorrupt, wantText: "header claims", maxAlloc: 1 << 16},
		{name: "bitshuffle odd block", pipeline: []Filter{{ID: filterBitshuffle, Values: []uint32{0, 4, 4, 12, 0}}}, src: make([]byte, 64), chunkBytes: 64, want: driver.ErrCorrupt, wantText: "not a multiple of 8"},
		{name: "bitshuffle truncated", pipeline: []Filter{{ID: filterBitshuffle, Values: []uint32{0, 4, 4, 0, 2}}}, src: append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 64), 64), 0, 0, 0, 9, 1), chunkBytes: 64, want: driver.ErrCorrupt},
		{name: "blosc garbage", pipeline: []Filter{{ID: filterBlosc}}, src: []byte("garbage"), chunkBytes: 8, want: driver.ErrCorrupt},
		{name: "too many filters", pipeline: make([]Filter, 33), chunkBytes: 8, want: driver.ErrCorrupt},
		{name: "szip no values", pipeline: []Filter{{ID: filterSzip}}, src: []byte{1, 0, 0, 0, 0}, chunkBytes: 1, want: driver.ErrCorrupt, wantText: "client data values"},
		{name: "szip huge size", pipeline: szipPipe, src: []byte{0xff, 0xff, 0xff, 0x7f, 0}, chunkBytes: 4096, want: driver.ErrCorrupt, wantText: "header claims", maxAlloc: 1 << 16},
		{name: "szip truncated", pipeline: sz.Pipeline, src: sz.Chunks[0].Raw[:len(sz.Chunks[0].Raw)/2], chunkBytes: sz.ChunkBytes, want: driver.ErrCorrupt, wantText: "stream ends"},
		{name: "szip bad block size", pipeline: []Filter{{ID: filterSzip, Values: []uint32{169, 12, 8, 64}}}, src: sz.Chunks[0].Raw, chunkBytes: sz.ChunkBytes, want: driver.ErrCorrupt, wantText: "block size 12"},
		{name: "szip bad bits", pipeline: []Filter{{ID: filterSzip, Values: []uint32{169, 8, 40, 64}}}, src: sz.Chunks[0].Raw, chunkBytes: sz.ChunkBytes, want: driver.ErrCorrupt, wantText: "40 bits per pixel"},
		{name: "lzo truncated", pipeline: lz.Pipeline, src: lz.Chunks[0].Raw[:len(lz.Chunks[0].Raw)-10], chunkBytes: lz.ChunkBytes, want: driver.ErrCorrupt, wantText: "truncated"},
		{name: "lzo bad checksum", pipeline: lzSum.Pipeline, src: badAdler, chunkBytes: lzSum.ChunkBytes, want: driver.ErrCorrupt, wantText: "Adler-32"},
		{name: "lzo trailing bytes", pipeline: lz.Pipeline, src: append(bytes.Clone(lz.Chunks[0].Raw), 1, 2), chunkBytes: lz.ChunkBytes, want: driver.ErrCorrupt, wantText: "2 bytes after the end"},
		{name: "lzo too long", pipeline: lz.Pipeline, src: lz.Chunks[0].Raw, chunkBytes: lz.ChunkBytes - 8, want: driver.ErrLimit, wantText: "more than"},
		{name: "lzo before start", pipeline: []Filter{{ID: filterLZO}}, src: []byte{0x12, 'a', 0x40, 0x08, 0x11, 0, 0}, chunkBytes: 16, want: driver.ErrCorrupt, wantText: "match"},
		{name: "lzo long run bomb", pipeline: []Filter{{ID: filterLZO}}, src: append(make([]byte, 1<<12), 1, 0, 0), chunkBytes: 64, want: driver.ErrLimit, maxAlloc: 1 << 16},
		{name: "zfp", pipeline: []Filter{{ID: 32013, Name: "zfp"}}, src: []byte{1}, chunkBytes: 1, want: errors.ErrUnsupported, wantText: "HDF5 filter 32013 (zfp) is not supported"},
		{name: "sz after deflate", pipeline: []Filter{{ID: filterDeflate}, {ID: 32017}}, src: []byte{1}, chunkBytes: 1, want: errors.ErrUnsupported, wantText: "HDF5 filter 32017 (sz) is not supported"},
		{name: "unregistered", pipeline: []Filter{{ID: 40000, Name: "mine"}}, src: []byte{1}, chunkBytes: 1, want: errors.ErrUnsupported, wantText: `HDF5 filter 40000 ("mine")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			n := filterAllocated(func() {
				_, err = decodeChunk(tc.pipeline, tc.mask, tc.src, 4, tc.chunkBytes)
			})
			if !errors.Is(err, tc.want) || !strings.Contains(filterErrText(err), tc.wantText) {
				t.Fatalf("decodeChunk error = %v, want %v containing %q", err, tc.want, tc.wantText)
			}
			if tc.maxAlloc > 0 && n > tc.maxAlloc {
				t.Errorf("decodeChunk filterAllocated %d bytes, want at most %d", n, tc.maxAlloc)
			}
		})
	}
}

func filterErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// An unsupported optional filter that a chunk's mask skips does not stop
// the chunk from decoding.
func TestDecodeChunkMaskedUnsupported(t *testing.T) {
	pipeline := []Filter{{ID: filterDeflate}, {ID: 32013, Name: "zfp", Flags: 1}}
	got, err := decodeChunk(pipeline, 0b10, filterZlib(t, []byte("hello")), 1, 5)
	if err != nil || string(got) != "hello" {
		t.Fatalf("decodeChunk = %q, %v, want hello", got, err)
	}
	if err := checkFilters(pipeline); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("checkFilters = %v, want errors.ErrUnsupported", err)
	}
	if err := checkFilters(pipeline[:1]); err != nil {
		t.Fatalf("checkFilters(deflate) = %v, want nil", err)
	}
}

func TestFilterName(t *testing.T) {
	for id, want := range map[uint16]string{1: "deflate", 4: "szip", 6: "scaleoffset", 305: "lzo",
		32008: "bitshuffle", 32013: "zfp", 32026: "blosc2", 9999: "unknown"} {
		if got := filterName(id); got != want {
			t.Errorf("filterName(%d) = %q, want %q", id, got, want)
		}
	}
}

func TestFletcher32(t *testing.T) {
	// Values computed by libhdf5: the checksums of testdata chunks.
	for _, name := range []string{"fletcher32_i4", "fletcher32_u1_odd"} {
		tc := filterTestCase(t, name)
		for _, ch := range tc.Chunks {
			n := len(ch.Raw) - 4
			if got, want := checksumFletcher32(ch.Raw[:n]), binary.LittleEndian.Uint32(ch.Raw[n:]); got != want {
				t.Errorf("%s %v: fletcher32 = %#x, want %#x", name, ch.Offset, got, want)
			}
		}
	}
}
