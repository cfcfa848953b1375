package hdf5adapter

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// encodePipeline packs a pipeline for the fuzzer to mutate: per filter
// its id (2 bytes), value count (1 byte) and values (4 bytes each).
func encodePipeline(p []Filter) []byte {
	var b []byte
	for _, f := range p {
		b = binary.LittleEndian.AppendUint16(b, f.ID)
		b = append(b, byte(len(f.Values)))
		for _, v := range f.Values {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
	}
	return b
}

func decodePipeline(b []byte) []Filter {
	var p []Filter
	for len(b) >= 3 {
		f := Filter{ID: binary.LittleEndian.Uint16(b)}
		n := int(b[2])
		b = b[3:]
		for ; n > 0 && len(b) >= 4; n-- {
			f.Values = append(f.Values, binary.LittleEndian.Uint32(b))
			b = b[4:]
		}
		p = append(p, f)
	}
	return p
}

// FuzzDecodeChunk runs decodeChunk on mutated pipelines and chunks,
// seeded with every chunk of the libhdf5 test data: it must never panic,
// must return exactly the chunk's size on success, and must fail with a
// corrupt, limit or unsupported error.
func FuzzDecodeChunk(f *testing.F) {
	for _, tc := range loadFilterCases(f) {
		for _, ch := range tc.Chunks {
			f.Add(encodePipeline(tc.Pipeline), ch.Raw, ch.Mask, uint8(tc.ElemSize), uint32(tc.ChunkBytes))
		}
	}
	f.Fuzz(func(t *testing.T, pipe, raw []byte, mask uint32, elemSize uint8, chunkBytes uint32) {
		chunkBytes %= 1 << 20 // the limits the adapter applies before calling
		p := decodePipeline(pipe)
		out, err := decodeChunk(p, mask, raw, int(elemSize), int64(chunkBytes))
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) && !errors.Is(err, errors.ErrUnsupported) {
				t.Fatalf("decodeChunk error %v is neither corrupt, limit nor unsupported", err)
			}
			return
		}
		if int64(len(out)) != int64(chunkBytes) {
			t.Fatalf("decodeChunk returned %d bytes, want %d", len(out), chunkBytes)
		}
	})
}
