package ocdbtadapter_test

import (
	"bytes"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// diskProcess opens the database at url over HTTP as a new process
// would, with caches of its own and store as its store on disk, lists its
// root and reads the first file of the listing. It returns the requests
// srv saw and the file's bytes.
func diskProcess(t *testing.T, srv *fstest.HTTPServer, store *disk.Store, url string) (int64, []byte) {
	t.Helper()
	srv.Reset()
	fsys, err := vfs.OpenFS(t.Context(), url, fstest.ProcessOptions(store))
	if err != nil {
		t.Fatalf("OpenFS(%s): %v", url, err)
	}
	defer fsys.Close()
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatalf("ReadDir(.): %v", err)
	}
	i := slices.IndexFunc(ents, func(e fs.DirEntry) bool { return e.Type().IsRegular() })
	if i < 0 {
		t.Fatalf("no file in the root: %v", ents)
	}
	data, err := fs.ReadFile(fsys, ents[i].Name())
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", ents[i].Name(), err)
	}
	return srv.Requests(), data
}

// TestDiskObjects checks that a second process opening a remote database
// reads its B+tree and version-tree nodes from the store on disk that the
// first one filled, with exactly the requests that remain: the manifest
// (never kept, every commit rewrites it) and the value read. It also
// checks that only nodes are kept.
func TestDiskObjects(t *testing.T) {
	srv := fstest.NewHTTPServerFS(t, nil, os.DirFS(fstest.Fixture(t, "ocdbt")))
	for _, tc := range []struct {
		db          string
		first, next int64
	}{
		// The manifest and the one data file, which holds the root node
		// and the value and is read whole by the first request for it:
		// the second process needs it for the value anyway.
		{"ome_zarr_simple_0.5.ocdbt/|ocdbt:", 2, 2},
		// The manifest and the data file; the value is inline in the
		// node, so the second process reads the manifest only.
		{"files_min_arity.ocdbt/|ocdbt:", 2, 1},
		// An old version, found through the version tree: the manifest
		// and eight data files of version-tree and B+tree nodes; then
		// the manifest only.
		{"multi_version_low_arity.ocdbt/|ocdbt://v1/", 9, 1},
	} {
		t.Run(tc.db, func(t *testing.T) {
			store, err := disk.Open(t.TempDir(), 0)
			if err != nil {
				t.Fatal(err)
			}
			url := srv.URL() + "/" + tc.db
			first, want := diskProcess(t, srv, store, url)
			log1 := srv.LogString()
			second, got := diskProcess(t, srv, store, url)
			t.Logf("requests: first process %d, second %d", first, second)
			if first != tc.first || second != tc.next {
				t.Errorf("requests: first process %d, second %d; want %d, %d\nfirst:\n%s\nsecond:\n%s",
					first, second, tc.first, tc.next, log1, srv.LogString())
			}
			if !bytes.Equal(got, want) {
				t.Errorf("second process read %q, first %q", got, want)
			}
			keys := store.Keys()
			if len(keys) == 0 {
				t.Error("nothing kept")
			}
			for _, k := range keys {
				if name := k[strings.LastIndexByte(k, 0)+1:]; !strings.HasPrefix(name, "d/") || !strings.Contains(name, "@") {
					t.Errorf("kept %q, which is not a node of a data file", name)
				}
			}
		})
	}
}

// TestDiskObjectCorrupt checks that a kept node that does not decode is a
// miss: the process reads the node from its data file, gets the right
// bytes, and keeps it anew for the next. A node ends with a CRC-32C, so
// even one flipped byte is caught.
func TestDiskObjectCorrupt(t *testing.T) {
	srv := fstest.NewHTTPServerFS(t, nil, os.DirFS(fstest.Fixture(t, "ocdbt")))
	url := srv.URL() + "/multi_version_low_arity.ocdbt/|ocdbt://v1/"
	for _, corrupt := range []struct {
		name string
		edit func(b []byte) []byte
	}{
		{"garbage", func(b []byte) []byte { return bytes.Repeat([]byte{0xff}, len(b)) }},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"flipped", func(b []byte) []byte {
			b = bytes.Clone(b)
			b[len(b)/2] ^= 0x55
			return b
		}},
	} {
		t.Run(corrupt.name, func(t *testing.T) {
			store, err := disk.Open(t.TempDir(), 0)
			if err != nil {
				t.Fatal(err)
			}
			first, want := diskProcess(t, srv, store, url)
			keys := store.Keys()
			if len(keys) == 0 {
				t.Fatal("nothing kept")
			}
			for _, k := range keys {
				b, ok := store.Get(k, 0)
				if !ok {
					t.Fatalf("Get(%q) missed", k)
				}
				if err := store.Put(k, corrupt.edit(b)); err != nil {
					t.Fatal(err)
				}
			}
			again, got := diskProcess(t, srv, store, url)
			if !bytes.Equal(got, want) {
				t.Errorf("over corrupt copies read %q, want %q", got, want)
			}
			if again != first {
				t.Errorf("over corrupt copies: %d requests, want the first process's %d\n%s", again, first, srv.LogString())
			}
			if now := store.Keys(); !slices.Equal(now, keys) {
				t.Errorf("keys after the rewrite %q, want %q", now, keys)
			}
			third, _ := diskProcess(t, srv, store, url)
			if third >= first {
				t.Errorf("after the rewrite: %d requests, want fewer than %d\n%s", third, first, srv.LogString())
			}
		})
	}
}
