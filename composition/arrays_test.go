package composition_test

import (
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// arrayCase is one array of ARRAYS.md section 8: its pipeline below a
// base location and the sha column.
type arrayCase struct {
	base, adapter, sha string
}

// arrayCases are a representative set of the fixture arrays: plain,
// blosc, sharded (with absent inner chunks and shards), ragged edges,
// Fortran order and transpose, both endians, N5 codecs, and the
// TensorStore array; bases are directories relative to the fixtures.
var arrayCases = []arrayCase{
	{"zarr3/data.zarr/", "zarr3:1d.contiguous.blosc.i2", "ea99f710d9d0b8ba"},
	{"zarr3/data.zarr/", "zarr3:2d.chunked.ragged.compressed.sharded.i2", "00d2e6ff506fb601"},
	{"zarr3/data.zarr/", "zarr3:3d.chunked.mixed.i2.F", "58a54299e0e8d0a7"},
	{"zarr3/data.zarr/", "zarr3:3d.chunked.compressed.sharded.i2", "d9f3c8064105485f"},
	{"zarr3/data.zarr/", "zarr3:1d.chunked.filled.compressed.sharded.i2", "6ab1684123fce9ed"},
	{"zarr3/data.zarr/", "zarr3:1d.contiguous.f4.be", "dcddaac5238c2c60"},
	{"zarr3/data.zarr/", "zarr:consolidated/nested/1d.i2", "7d225d7363b843b9"},
	{"zarr3/tensorstore_single_res/", "zarr3:", "2d83d7541bb7ebf6"},
	{"zarr2/data.zarr/", "zarr2:2d.chunked.ragged.i2", "00d2e6ff506fb601"},
	{"zarr2/data.zarr/", "zarr2:3d.chunked.mixed.i2.F", "58a54299e0e8d0a7"},
	{"zarr2/data.zarr/", "zarr2:1d.contiguous.U13.be", "6d29b20fbab7ccbc"},
	{"zarr2/data.zarr/", "zarr:1d.contiguous.blosc.i2", "ea99f710d9d0b8ba"},
	{"n5/tensorstore_golden/blosc/", "n5:", "5c3dfcab6a19fd7b"},
	{"n5/tensorstore_golden/xz/", "n5:", "5c3dfcab6a19fd7b"},
}

// zipBases are the fixture zips, as bases that hold the same arrays as
// the directories.
var zipBases = map[string]string{
	"zarr3/data.zarr/": "zarr3/data.zipped_from_parent.zarr.zip|zip:data.zarr/",
	"zarr2/data.zarr/": "zarr2/data.zipped_from_within.zarr.zip|zip:",
}

// TestArraysOverHTTP reads arrays over http, from the directories and
// from the fixture zips, and compares them with ARRAYS.md section 8.
func TestArraysOverHTTP(t *testing.T) {
	srv := server(t)
	for _, tc := range arrayCases {
		bases := []string{tc.base}
		if z, ok := zipBases[tc.base]; ok {
			bases = append(bases, z)
		}
		for _, base := range bases {
			p := srv.URL() + "/" + base + "|" + tc.adapter
			t.Run(base+"|"+tc.adapter, func(t *testing.T) {
				if got := sha16(readArray(t, p, "")); got != tc.sha {
					t.Errorf("sha256(%s) = %s, want %s", p, got, tc.sha)
				}
			})
		}
	}
}

// TestArrayRequestsOverHTTP counts the requests of reading arrays over
// http: each metadata file and each chunk or shard object is fetched
// once, in the one request that opens it.
func TestArrayRequestsOverHTTP(t *testing.T) {
	srv := server(t)
	for _, tc := range []struct {
		name, pipeline string
		want           int64
	}{
		// zarr.json, a 404 for the node's directory (which http cannot
		// Stat; see array's Node.Tree), then 2x2 chunks.
		{"zarr3 4 chunks", "/zarr3/data.zarr/|zarr3:2d.chunked.i2", 2 + 4},
		// 8 shards, 8 inner chunks each: one request per shard object.
		{"zarr3 8 shards", "/zarr3/data.zarr/|zarr3:3d.chunked.compressed.sharded.i2", 2 + 8},
		// .zattrs (404), .zarray, the directory (404), 2x2 ragged
		// chunks.
		{"zarr2 3x3 ragged", "/zarr2/data.zarr/|zarr2:2d.chunked.ragged.i2", 3 + 4},
		// attributes.json at the root of the server path ("." needs no
		// request), 4 blocks.
		{"n5 4 blocks", "/n5/tensorstore_golden/gzip/|n5:", 1 + 4},
		// The zip: its end records, its central directory and this
		// array's members all lie in the last 64 KiB, the first read.
		{"zarr3 in a zip", "/zarr3/data.zipped_from_parent.zarr.zip|zip:data.zarr/|zarr3:3d.chunked.compressed.sharded.i2", 1},
		// The first array of the 77553-byte zip, before the last 64 KiB:
		// one more request, for the bytes before them (blocks coalesced).
		{"zarr3 in a zip, first array", "/zarr3/data.zipped_from_parent.zarr.zip|zip:data.zarr/|zarr3:3d.chunked.i2", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts()
			n := counted(srv, func() { readArrayOpts(t, srv.URL()+tc.pipeline, "", o) })
			wantRequests(t, srv, "read the array", n, tc.want)
			// A pipeline opened again learns each object's size and
			// validator again: one request per object, but the zip's
			// blocks come from the cache.
			n = counted(srv, func() { readArrayOpts(t, srv.URL()+tc.pipeline, "", o) })
			if strings.Contains(tc.pipeline, ".zip") {
				wantRequests(t, srv, "read the array again", n, 1)
			}
		})
	}
}

// TestArrayConformanceOverHTTP runs the conformance kit on store views
// read over http through the zip (a directory over http cannot be
// listed).
func TestArrayConformanceOverHTTP(t *testing.T) {
	srv := server(t)
	fsys := fixtureFS(t)
	fstest.Run(t, fstest.Case{
		Pipeline:   srv.URL() + "/zarr3/data.zipped_from_parent.zarr.zip|zip:data.zarr/|zarr3:3d.chunked.compressed.sharded.i2",
		Options:    opts(),
		Files:      treeFiles(t, fsys, "zarr3/data.zarr/3d.chunked.compressed.sharded.i2", ""),
		Exhaustive: true,
	})
}
