package zarradapter_test

import (
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// The store views pass the conformance kit: a whole hierarchy, one
// sharded array, and the same through a zip.
func TestConformance(t *testing.T) {
	for _, p := range []string{
		"file:" + fixture(t, "zarr3/data.zarr") + "/|zarr3:",
		"file:" + fixture(t, "zarr3/data.zarr") + "/|zarr3:3d.chunked.compressed.sharded.i2",
		"file:" + fixture(t, "zarr3/data.uncompressed.zarr.zip") + "|zip:|zarr3:consolidated",
		"file:" + fixture(t, "zarr2/data.zarr") + "/|zarr2:",
		"file:" + fixture(t, "zarr2/data.zipped_from_within.zarr.zip") + "|zip:|zarr:2d.chunked.ragged.i2",
	} {
		t.Run(p, func(t *testing.T) { fstest.Run(t, fstest.Case{Pipeline: p}) })
	}
}
