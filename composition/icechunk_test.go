package composition_test

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// icechunkKeys are the key spaces of ICECHUNK.md section 10, by ref.
var icechunkKeys = func() map[string][]string {
	tagged := []string{"zarr.json", "group1/zarr.json",
		"group1/big_chunks/zarr.json", "group1/big_chunks/c/0/0", "group1/big_chunks/c/0/1", "group1/big_chunks/c/1/0", "group1/big_chunks/c/1/1",
		"group1/small_chunks/zarr.json", "group1/small_chunks/c/0", "group1/small_chunks/c/1", "group1/small_chunks/c/2", "group1/small_chunks/c/3"}
	main := append(slices.Clone(tagged), "group1/small_chunks/c/4")
	branch := append(slices.Clone(tagged), "group2/zarr.json", "group2/group3/zarr.json", "group2/group3/group4/zarr.json",
		"group2/group3/group4/group5/zarr.json", "group2/group3/group4/group5/inner/zarr.json")
	return map[string][]string{
		"branch.main": main, "tag.it%20works!": tagged,
		"branch.my-branch": branch, "tag.it%20also%20works!": branch,
	}
}()

// walkFiles lists the regular files of fsys, sorted.
func walkFiles(t testing.TB, fsys fs.FS) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			names = append(names, name)
		}
		return err
	})
	if err != nil {
		t.Fatalf("WalkDir error = %v", err)
	}
	slices.Sort(names)
	return names
}

var icechunkRepos = []string{"test-repo-v1", "test-repo-v2", "test-repo-v2-migrated"}

// TestIcechunkOverHTTP: every ref of the three repositories over http,
// where nothing can be listed: v2 reads the repo file, v1 the ref files
// by name.
func TestIcechunkOverHTTP(t *testing.T) {
	srv := server(t)
	for _, repo := range icechunkRepos {
		base := srv.URL() + "/icechunk/" + repo + "/"
		t.Run(repo, func(t *testing.T) {
			for ref, want := range icechunkKeys {
				fsys := openFS(t, base+"|icechunk://"+ref+"/", opts())
				if got := walkFiles(t, fsys); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
					t.Errorf("%s: files = %v, want %v", ref, got, want)
				}
			}
			for _, ref := range []string{"tag.deleted", "branch.nope"} {
				_, err := vfs.OpenFS(context.Background(), base+"|icechunk://"+ref+"/", opts())
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("OpenFS(%s) error = %v, want fs.ErrNotExist", ref, err)
				}
			}
			// Detection without a listing.
			if got := walkFiles(t, openFS(t, base, opts())); len(got) != 13 {
				t.Errorf("detected %s: %d files, want the 13 of main", base, len(got))
			}
			// Arrays: inline chunks of small_chunks; big_chunks holds a
			// virtual chunk, which is refused.
			small := map[string]string{"branch.main": "\x54\x54\x54\x54\x54", "tag.it%20works!": "\x54\x54\x54\x54\x08"}
			for ref, want := range small {
				if got := readArray(t, base+"|icechunk://"+ref+"/|zarr3:group1/small_chunks", ""); string(got) != want {
					t.Errorf("%s small_chunks = % x, want % x", ref, got, want)
				}
			}
			fsys := openFS(t, base+"|icechunk:group1/big_chunks/c/", opts())
			b := readFile(t, fsys, "1/1")
			if len(b) != 19 {
				t.Errorf("big_chunks/c/1/1: %d bytes, want 19", len(b))
			}
			_, err := fs.ReadFile(fsys, "0/0")
			if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "s3://testbucket/can_read_old/chunk-1") {
				t.Errorf("ReadFile(virtual chunk) error = %v, want fs.ErrPermission naming its URL", err)
			}
		})
	}
}

// TestIcechunkRequestsOverHTTP counts the requests of opening a snapshot
// over http and reading chunks.
func TestIcechunkRequestsOverHTTP(t *testing.T) {
	srv := server(t)
	for _, tc := range []struct {
		repo       string
		open, read int64
	}{
		// v2: the repo file, then the snapshot.
		{"test-repo-v2", 2, 1},
		// v1: repo (404), refs/branch.main/ZZZZZZZZ.json (404, the
		// legacy format's marker), refs/branch.main/ref.json, the
		// snapshot.
		{"test-repo-v1", 4, 1},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			var fsys *vfs.FS
			n := counted(srv, func() { fsys = openFS(t, srv.URL()+"/icechunk/"+tc.repo+"/|icechunk:", opts()) })
			wantRequests(t, srv, "open", n, tc.open)
			// A native chunk: the manifest of big_chunks, then the chunk
			// file.
			n = counted(srv, func() { readFile(t, fsys, "group1/big_chunks/c/1/1") })
			wantRequests(t, srv, "native chunk", n, 2)
			// The whole key space and an inline chunk: the manifest of
			// small_chunks.
			n = counted(srv, func() {
				walkFiles(t, fsys)
				readFile(t, fsys, "group1/small_chunks/c/4")
			})
			wantRequests(t, srv, "walk and an inline chunk", n, 1)
			n = counted(srv, func() {
				walkFiles(t, fsys)
				readFile(t, fsys, "group1/big_chunks/c/1/1")
				readFile(t, fsys, "group1/small_chunks/c/4")
			})
			wantRequests(t, srv, "the same again", n, 0)
		})
	}
	// Detection: snapshots (404: not a directory the server can show),
	// then the repo file (v2) or repo (404) and refs/branch.main/ref.json
	// (v1), manifest.ocdbt (404: detection checks every format), then
	// the adapter: what it probes again comes from the tree's heads and
	// misses, so v1 adds refs/branch.main/ZZZZZZZZ.json (404) and the
	// snapshot, v2 the snapshot.
	for _, tc := range []struct {
		repo string
		want int64
	}{{"test-repo-v2", 4}, {"test-repo-v1", 6}} {
		t.Run("detect "+tc.repo, func(t *testing.T) {
			n := counted(srv, func() { openFS(t, srv.URL()+"/icechunk/"+tc.repo+"/", opts()) })
			wantRequests(t, srv, "detect and open", n, tc.want)
		})
	}
}

// TestIcechunkConformanceOverHTTP runs the conformance kit on snapshots
// read over http (on subtrees without the virtual chunk, which is not
// readable without options).
func TestIcechunkConformanceOverHTTP(t *testing.T) {
	srv := server(t)
	for _, tc := range []struct{ repo, sub string }{
		{"test-repo-v2", "tag.it%20works!/group1/small_chunks/"},
		{"test-repo-v1", "branch.my-branch/group2/"},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			files := localFiles(t, "icechunk/"+tc.repo+"/|icechunk://"+tc.sub)
			fstest.Run(t, fstest.Case{Pipeline: srv.URL() + "/icechunk/" + tc.repo + "/|icechunk://" + tc.sub, Options: opts(), Files: files, Exhaustive: true})
		})
	}
}
