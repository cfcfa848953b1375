package zarradapter_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/ocdbtadapter"
	"github.com/pipefs/pipefs/fstest"
)

// The OME-Zarr 0.5 image stored in an OCDBT database reads as the
// generator wrote it (np.arange(100, dtype=uint16).reshape(10, 10)), and
// every scale reads the same as the plain copy of the tree beside it.
func TestOCDBT(t *testing.T) {
	db := "file:" + fixture(t, "ocdbt/ome_zarr_simple_0.5.ocdbt") + "/|ocdbt:"
	plain := "file:" + fixture(t, "ocdbt/expected/ome_zarr_simple_0.5") + "/"
	b, n := readArray(t, db+"|zarr3:scale0/image")
	if got := n.Array.Shape; len(got) != 2 || got[0] != 10 || got[1] != 10 || n.Array.DType.Name != "uint16" {
		t.Fatalf("scale0/image: shape %v %s, want [10 10] uint16", got, n.Array.DType.Name)
	}
	for i := 0; i < 100; i++ {
		if v := binary.LittleEndian.Uint16(b[2*i:]); int(v) != i {
			t.Fatalf("element %d = %d, want %d", i, v, i)
		}
	}
	for _, s := range []string{"scale0/image", "scale1/image", "scale2/image"} {
		got, _ := readArray(t, db+"|zarr3:"+s)
		want, _ := readArray(t, plain+"|zarr3:"+s)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: OCDBT and plain copies differ", s)
		}
	}
	fstest.Run(t, fstest.Case{Pipeline: db + "|zarr3:"})
}
