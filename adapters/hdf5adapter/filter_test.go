package hdf5adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// filterCase is one dataset of testdata/filters/cases.json, written by
// scripts/hdf5filters.py, or of testdata/filters/szip_lzo.json, written
// by scripts/hdf5szlzo.py: its pipeline and, for each stored chunk, the raw
// bytes and what libhdf5 decodes them to.
type filterCase struct {
	Name       string   `json:"name"`
	Note       string   `json:"note"`
	Expect     string   `json:"expect"` // "ok" or "unsupported"
	Dtype      string   `json:"dtype"`
	ElemSize   int      `json:"elem_size"`
	ChunkBytes int64    `json:"chunk_bytes"`
	Pipeline   []Filter `json:"pipeline"`
	Chunks     []struct {
		Offset []int  `json:"offset"`
		Mask   uint32 `json:"mask"`
		Raw    []byte `json:"raw"`
		Want   []byte `json:"want"`
	} `json:"chunks"`
}

func loadFilterCases(tb testing.TB) []filterCase {
	tb.Helper()
	var cases []filterCase
	for _, name := range []string{"testdata/filters/cases.json", "testdata/filters/szip_lzo.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		var doc struct {
			Cases []filterCase `json:"cases"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			tb.Fatal(err)
		}
		if len(doc.Cases) == 0 {
			tb.Fatalf("no cases in %s", name)
		}
		cases = append(cases, doc.Cases...)
	}
	return cases
}

// TestDecodeChunkLibhdf5 decodes every chunk libhdf5 wrote and compares
// it byte for byte with libhdf5's own decoding.
func TestDecodeChunkLibhdf5(t *testing.T) {
	seen := map[uint16]bool{}
	for _, tc := range loadFilterCases(t) {
		t.Run(tc.Name, func(t *testing.T) {
			for _, f := range tc.Pipeline {
				seen[f.ID] = true
			}
			for _, ch := range tc.Chunks {
				got, err := decodeChunk(tc.Pipeline, ch.Mask, ch.Raw, tc.ElemSize, tc.ChunkBytes)
				if tc.Expect == "unsupported" {
					f := tc.Pipeline[0]
					want := fmt.Sprintf("HDF5 filter %d (%s) is not supported", f.ID, filterName(f.ID))
					if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(fmt.Sprint(err), want) {
						t.Fatalf("decodeChunk(%v) error = %v, want %q matching errors.ErrUnsupported", ch.Offset, err, want)
					}
					continue
				}
				if err != nil {
					t.Fatalf("decodeChunk(%v, mask %#x) error: %v", ch.Offset, ch.Mask, err)
				}
				if !bytes.Equal(got, ch.Want) {
					t.Fatalf("decodeChunk(%v, mask %#x) = %x\nwant %x", ch.Offset, ch.Mask, got, ch.Want)
				}
			}
		})
	}
	for _, id := range []uint16{1, 2, 3, 4, 5, 6, 305, 307, 32000, 32001, 32004, 32008, 32015} {
		if !seen[id] {
			t.Errorf("no test case uses filter %d (%s)", id, filterName(id))
		}
	}
}
