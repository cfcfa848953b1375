package zarradapter_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	_ "github.com/pipefs/pipefs/adapters/zarradapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// fixture returns the absolute slash path of a shared fixture.
func fixture(t testing.TB, rel string) string {
	t.Helper()
	return filepath.ToSlash(fstest.Fixture(t, rel))
}

// sha16 is the first 16 hex digits of the SHA-256 of b, as ARRAYS.md
// section 8 gives them.
func sha16(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])[:16]
}

// Section 8 of ARRAYS.md: Zarr v2, every array with fixed-size elements.
var zarr2Want = map[string]string{
	"1d.contiguous.raw.i2": "ea99f710d9d0b8ba", "1d.contiguous.zlib.i2": "ea99f710d9d0b8ba",
	"1d.contiguous.zstd.i2": "ea99f710d9d0b8ba", "1d.contiguous.lz4.i2": "ea99f710d9d0b8ba",
	"1d.contiguous.blosc.i2": "ea99f710d9d0b8ba", "1d.chunked.i2": "ea99f710d9d0b8ba",
	"2d.contiguous.i2": "ea99f710d9d0b8ba", "2d.chunked.i2": "ea99f710d9d0b8ba",
	"1d.contiguous.shuffle.i2": "ea99f710d9d0b8ba", "1d.contiguous.delta.i2": "ea99f710d9d0b8ba",
	"1d.chunked.ragged.i2": "6ca637cc10a30392", "2d.chunked.ragged.i2": "00d2e6ff506fb601",
	"3d.contiguous.i2": "58a54299e0e8d0a7", "3d.chunked.i2": "58a54299e0e8d0a7",
	"3d.chunked.mixed.i2.C": "58a54299e0e8d0a7", "3d.chunked.mixed.i2.F": "58a54299e0e8d0a7",
	"1d.contiguous.i4": "cf97adeedb59e05b", "1d.contiguous.u1": "3554726ba0f5404f",
	"1d.contiguous.f4.le": "dcddaac5238c2c60", "1d.contiguous.f4.be": "dcddaac5238c2c60",
	"1d.contiguous.f8": "d261cc2e77ca0609", "1d.contiguous.b1": "507503b51960cced",
	"1d.contiguous.delta.shuffle.i2": "7d225d7363b843b9", "1d.contiguous.fixedscaleoffset.f4": "9303892c7fe8ba15",
	"1d.contiguous.bitround.f4": "858a3e61ec0ee5b8",
	"1d.contiguous.U13.le":      "6d29b20fbab7ccbc", "1d.contiguous.U13.be": "6d29b20fbab7ccbc",
	"1d.contiguous.U7": "9e2fc9cbd54a9505", "2d.chunked.U7": "9e2fc9cbd54a9505",
	"1d.contiguous.S7": "2bbc20d3009403d0",
}

// Section 8 of ARRAYS.md: Zarr v3 (zarrita fixtures), every array with
// fixed-size elements.
var zarr3Want = map[string]string{
	"1d.contiguous.raw.i2": "ea99f710d9d0b8ba", "1d.contiguous.gzip.i2": "ea99f710d9d0b8ba",
	"1d.contiguous.blosc.i2": "ea99f710d9d0b8ba", "1d.chunked.i2": "ea99f710d9d0b8ba",
	"2d.contiguous.i2": "ea99f710d9d0b8ba", "2d.chunked.i2": "ea99f710d9d0b8ba",
	"consolidated/1d.chunked.i2": "ea99f710d9d0b8ba", "consolidated/2d.contiguous.i2": "ea99f710d9d0b8ba",
	"1d.contiguous.compressed.sharded.i2": "ea99f710d9d0b8ba", "1d.chunked.compressed.sharded.i2": "ea99f710d9d0b8ba",
	"2d.contiguous.compressed.sharded.i2": "ea99f710d9d0b8ba",
	"1d.chunked.ragged.i2":                "6ca637cc10a30392",
	"2d.chunked.ragged.i2":                "00d2e6ff506fb601", "2d.chunked.ragged.compressed.sharded.i2": "00d2e6ff506fb601",
	"3d.contiguous.i2": "58a54299e0e8d0a7", "3d.chunked.i2": "58a54299e0e8d0a7",
	"3d.chunked.mixed.i2.C": "58a54299e0e8d0a7", "3d.chunked.mixed.i2.F": "58a54299e0e8d0a7",
	"3d.contiguous.compressed.sharded.i2": "58a54299e0e8d0a7", "3d.chunked.mixed.compressed.sharded.i2": "58a54299e0e8d0a7",
	"1d.contiguous.i4": "cf97adeedb59e05b", "1d.contiguous.compressed.sharded.i4": "cf97adeedb59e05b",
	"1d.contiguous.delta.i4":       "cf97adeedb59e05b",
	"3d.contiguous.delta.i4.mixed": "6cefb3794e0cb2eb",
	"1d.contiguous.u1":             "3554726ba0f5404f", "1d.contiguous.compressed.sharded.u1": "3554726ba0f5404f",
	"1d.contiguous.f2.le": "db80a7d87d47d770",
	"1d.contiguous.f4.le": "dcddaac5238c2c60", "1d.contiguous.f4.be": "dcddaac5238c2c60",
	"1d.contiguous.compressed.sharded.f4": "dcddaac5238c2c60",
	"1d.contiguous.f8":                    "d261cc2e77ca0609", "1d.contiguous.compressed.sharded.f8": "d261cc2e77ca0609",
	"1d.contiguous.b1": "507503b51960cced", "1d.contiguous.compressed.sharded.b1": "507503b51960cced",
	"1d.chunked.filled.compressed.sharded.i2": "6ab1684123fce9ed",
	"2d.chunked.compressed.sharded.filled.i2": "64a240d34d0c29ec",
	"2d.chunked.compressed.sharded.i2":        "9774afe2116a2ba0",
	"3d.chunked.compressed.sharded.i2":        "d9f3c8064105485f",
	"consolidated/nested/1d.i2":               "7d225d7363b843b9",
}

// readArray opens pipeline as a store view and reads its whole array.
func readArray(t *testing.T, pipeline string) ([]byte, *array.Node) {
	t.Helper()
	ctx := context.Background()
	fsys, err := vfs.OpenFS(ctx, pipeline, nil)
	if err != nil {
		t.Fatalf("OpenFS(%s): %v", pipeline, err)
	}
	defer fsys.Close()
	info, err := fsys.Stat(".")
	if err != nil {
		t.Fatal(err)
	}
	n := array.NodeOf(info)
	if n == nil || n.Array == nil {
		t.Fatalf("%s: Stat(\".\").Sys() = %#v, want an array node", pipeline, info.Sys())
	}
	b, err := n.Array.ReadAll(ctx, 1<<20)
	if err != nil {
		t.Fatalf("%s: ReadAll: %v", pipeline, err)
	}
	return b, n
}

// checkAll reads every array of want under each base pipeline.
func checkAll(t *testing.T, scheme string, want map[string]string, bases ...string) {
	for _, base := range bases {
		matched := 0
		for name, sha := range want {
			p := base + "|" + scheme + ":" + name
			t.Run(p, func(t *testing.T) {
				b, _ := readArray(t, p)
				if got := sha16(b); got != sha {
					t.Errorf("sha256(%s) = %s, want %s (%d bytes: % x)", p, got, sha, len(b), b[:min(len(b), 64)])
				} else {
					matched++
				}
			})
		}
		t.Logf("%s: %d of %d arrays match ARRAYS.md section 8", base, matched, len(want))
	}
}

func TestZarr2Fixtures(t *testing.T) {
	checkAll(t, "zarr2", zarr2Want,
		"file:"+fixture(t, "zarr2/data.zarr")+"/",
		"file:"+fixture(t, "zarr2/data.zipped_from_within.zarr.zip")+"|zip:")
	checkAll(t, "zarr", zarr2Want, "file:"+fixture(t, "zarr2/data.zarr")+"/")
}

func TestZarr3Fixtures(t *testing.T) {
	checkAll(t, "zarr3", zarr3Want,
		"file:"+fixture(t, "zarr3/data.zarr")+"/",
		"file:"+fixture(t, "zarr3/data.zipped_from_parent.zarr.zip")+"|zip:data.zarr/",
		"file:"+fixture(t, "zarr3/data.uncompressed.zarr.zip")+"|zip:")
	checkAll(t, "zarr", zarr3Want, "file:"+fixture(t, "zarr3/data.zarr")+"/")
	checkAll(t, "zarr3", map[string]string{".": "2d83d7541bb7ebf6"}, "file:"+fixture(t, "zarr3/tensorstore_single_res")+"/")
}
