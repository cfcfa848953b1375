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
