package composition_test

import (
	"archive/zip"
	"strconv"
	"sync"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// nestedTrees are the fixture directories copied into the containers.
var nestedTrees = []string{
	"ocdbt/multi_version_low_arity.ocdbt", "ocdbt/files_min_arity.ocdbt", "ocdbt/ome_zarr_simple_0.5.ocdbt",
	"icechunk/test-repo-v1", "icechunk/test-repo-v2",
	"zarr3/data.zarr", "zarr3/tensorstore_single_res", "zarr2/data.zarr", "n5/tensorstore_golden",
}

var nestedOnce struct {
	sync.Once
	files map[string][]byte
}

// nestedFiles returns the files of nestedTrees, named as in the fixtures.
func nestedFiles(t testing.TB) map[string][]byte {
	nestedOnce.Do(func() {
		fsys := fixtureFS(t)
		var ms []map[string][]byte
		for _, dir := range nestedTrees {
			ms = append(ms, treeFiles(t, fsys, dir, dir))
		}
		nestedOnce.files = merge(ms...)
	})
	return nestedOnce.files
}

// containers writes the fixture trees into the memory root as a zip
// inside a zip, a tar and a tar.gz, and returns the pipelines of their
// roots, by name.
func containers(t testing.TB) map[string]string {
	t.Helper()
	files := nestedFiles(t)
	inner := fstest.ZipBytes(files, zip.Deflate)
	tarred := tarBytes(t, files)
	pfx := "memory:/" + fstest.MapFiles(t, map[string][]byte{
		"outer.zip": fstest.ZipBytes(map[string][]byte{"in/inner.zip": inner, "readme.txt": []byte("hi")}, zip.Store),
		"x.tar":     tarred,
		"x.tar.gz":  gzipBytes(t, tarred),
	})
	return map[string]string{
		"zip in zip": pfx + "/outer.zip|zip:in/inner.zip|zip:",
		"tar":        pfx + "/x.tar|pipefs.tar:",
		"tar.gz":     pfx + "/x.tar.gz|gzip:|pipefs.tar:",
	}
}

// TestNested reads the databases, repositories and arrays from copies
// nested in other containers, against the guides' expected results.
func TestNested(t *testing.T) {
	for name, root := range containers(t) {
		t.Run(name, func(t *testing.T) {
			testStoresUnder(t, root)
		})
	}
}

// testStoresUnder checks the stores and arrays of nestedTrees below the
// directory location root ("...|zip:").
func testStoresUnder(t *testing.T, root string) {
	db := root + "ocdbt/multi_version_low_arity.ocdbt/"
	for _, n := range []int{1, 100, 199} {
		checkMultiVersion(t, openFS(t, db+"|ocdbt://v"+strconv.Itoa(n)+"/", nil), n)
	}
	// Detection of manifest.ocdbt: the latest version.
	checkMultiVersion(t, openFS(t, db, nil), 200)

	want := treeFiles(t, fixtureFS(t), "ocdbt/expected/files", "")
	fsys := openFS(t, root+"ocdbt/files_min_arity.ocdbt/", nil)
	for name, w := range want {
		if got := readFile(t, fsys, name); string(got) != string(w) {
			t.Errorf("files_min_arity: ReadFile(%q) = %q, want %q", name, got, w)
		}
	}
	if b := readArray(t, root+"ocdbt/ome_zarr_simple_0.5.ocdbt/|ocdbt:|zarr3:scale0/image", ""); len(b) != 200 || b[198] != 99 {
		t.Errorf("ome_zarr scale0/image = %d bytes, want 200 ending in 99", len(b))
	}

	for _, repo := range []string{"test-repo-v1", "test-repo-v2"} {
		for ref, keys := range icechunkKeys {
			if got := walkFiles(t, openFS(t, root+"icechunk/"+repo+"/|icechunk://"+ref+"/", nil)); len(got) != len(keys) {
				t.Errorf("%s %s: %d files, want %d", repo, ref, len(got), len(keys))
			}
		}
		// Detection of the repository.
		if got := walkFiles(t, openFS(t, root+"icechunk/"+repo+"/", nil)); len(got) != 13 {
			t.Errorf("%s detected: %d files, want 13", repo, len(got))
		}
		if got := readArray(t, root+"icechunk/"+repo+"/|icechunk://tag.it%20works!/|zarr3:group1/small_chunks", ""); string(got) != "\x54\x54\x54\x54\x08" {
			t.Errorf("%s small_chunks = % x, want 54 54 54 54 08", repo, got)
		}
	}

	for _, tc := range arrayCases {
		p := root + tc.base + "|" + tc.adapter
		if got := sha16(readArray(t, p, "")); got != tc.sha {
			t.Errorf("sha256(%s) = %s, want %s", p, got, tc.sha)
		}
	}
}

// TestNestedConformance runs the conformance kit on a few nested
// compositions.
func TestNestedConformance(t *testing.T) {
	roots := containers(t)
	fsys := fixtureFS(t)
	fstest.Run(t, fstest.Case{Pipeline: roots["zip in zip"] + "ocdbt/files_min_arity.ocdbt/|ocdbt:",
		Files: treeFiles(t, fsys, "ocdbt/expected/files", ""), Exhaustive: true})
	fstest.Run(t, fstest.Case{Pipeline: roots["tar.gz"] + "zarr3/data.zarr/|zarr3:2d.chunked.ragged.compressed.sharded.i2",
		Files: treeFiles(t, fsys, "zarr3/data.zarr/2d.chunked.ragged.compressed.sharded.i2", ""), Exhaustive: true})
	fstest.Run(t, fstest.Case{Pipeline: roots["tar"] + "icechunk/test-repo-v2/|icechunk://branch.my-branch/group2/",
		Files: localFiles(t, "icechunk/test-repo-v2/|icechunk://branch.my-branch/group2/"), Exhaustive: true})
}
