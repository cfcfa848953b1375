package hdf5adapter

import (
	"encoding/binary"
	"math"
	"testing"
)

// BenchmarkDecodeChunkShuffleDeflate decodes a 1 MiB chunk of float64
// (h5py's shuffle=True, compression="gzip").
func BenchmarkDecodeChunkShuffleDeflate(b *testing.B) {
	const n = 1 << 17
	data := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(math.Sin(float64(i)/500)*1000))
	}
	shuffled := make([]byte, len(data))
	for i := range n {
		for j := range 8 {
			shuffled[j*n+i] = data[8*i+j]
		}
	}
	raw := filterZlib(b, shuffled)
	pipeline := []Filter{{ID: filterShuffle, Values: []uint32{8}}, {ID: filterDeflate, Values: []uint32{4}}}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := decodeChunk(pipeline, 0, raw, 8, int64(len(data)))
		if err != nil || len(out) != len(data) {
			b.Fatal(len(out), err)
		}
	}
}

// benchCase decodes every chunk of a case of the libhdf5 test data.
func benchCase(b *testing.B, name string) {
	var tc filterCase
	for _, c := range loadFilterCases(b) {
		if c.Name == name {
			tc = c
		}
	}
	if tc.Name == "" {
		b.Fatalf("no case %s", name)
	}
	b.SetBytes(tc.ChunkBytes * int64(len(tc.Chunks)))
	b.ReportAllocs()
	for b.Loop() {
		for _, ch := range tc.Chunks {
			if _, err := decodeChunk(tc.Pipeline, ch.Mask, ch.Raw, tc.ElemSize, tc.ChunkBytes); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecodeChunkSzip decodes a 64 KiB chunk of uint16 written by
// libhdf5 with libaec (nn, 8 pixels per block).
func BenchmarkDecodeChunkSzip(b *testing.B) { benchCase(b, "szip_nn8_zero_runs_u2") }

// BenchmarkDecodeChunkLZO decodes PyTables' LZO chunks of a table.
func BenchmarkDecodeChunkLZO(b *testing.B) { benchCase(b, "lzo_table_large") }
