package hdf5adapter_test

import (
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

func TestConformance(t *testing.T) {
	earliest := map[string][]byte{
		"dataset1":                  enc("<i4", 0, 1, 2, 3),
		"group1/dataset2":           enc(">u8", 0, 1, 2, 3),
		"group1/subgroup1/dataset3": enc("<f4", 0, 1, 2, 3),
	}
	for _, c := range []fstest.Case{
		{Pipeline: fixture(t, "earliest.hdf5"), Files: earliest, Exhaustive: true},
		{Pipeline: fixture(t, "latest.hdf5"), Files: earliest, Exhaustive: true},
		{Pipeline: fixture(t, "chunked.hdf5"), Files: map[string][]byte{"dataset1": enc("<i4", arange(336)...)}, Exhaustive: true},
		{Pipeline: fixture(t, "groups.hdf5"), Dirs: []string{"group1", "group2/subgroup1", "group2/subgroup2/sub_subgroup1",
			"group2/subgroup2/sub_subgroup2", "group2/subgroup2/sub_subgroup3"}, Exhaustive: true},
		{Pipeline: fixture(t, "latest.hdf5") + "group1/", Files: map[string][]byte{
			"dataset2": enc(">u8", 0, 1, 2, 3), "subgroup1/dataset3": enc("<f4", 0, 1, 2, 3)}, Exhaustive: true},
	} {
		t.Run(c.Pipeline, func(t *testing.T) { fstest.Run(t, c) })
	}
}

func TestConformanceFile(t *testing.T) {
	fstest.RunFile(t, fstest.FileCase{Pipeline: fixture(t, "chunk_index_v4.hdf5") + "btree2", Data: enc("<i4", arange(336)...)})
	fstest.RunFile(t, fstest.FileCase{Pipeline: fixture(t, "earliest_extra.hdf5") + "/chunk_partial", Data: func() []byte {
		cp := make([]float64, 36)
		for i := range cp {
			cp[i] = 11
			if r, c := i/6, i%6; r < 3 && c >= 3 {
				cp[i] = float64(r*3 + c - 3)
			}
		}
		return enc(">i4", cp...)
	}()})
}
