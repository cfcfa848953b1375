package icechunkadapter_test

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

// diskProcess opens the repository at url over HTTP as a new process
// would, with caches of its own and store as its store on disk, lists its
// root and reads chunk. It returns the requests srv saw and the chunk.
func diskProcess(t *testing.T, srv *fstest.HTTPServer, store *disk.Store, url, chunk string) (int64, []byte) {
	t.Helper()
	srv.Reset()
	fsys, err := vfs.OpenFS(t.Context(), url, fstest.ProcessOptions(store))
	if err != nil {
		t.Fatalf("OpenFS(%s): %v", url, err)
	}
	defer fsys.Close()
	if _, err := fs.ReadDir(fsys, "."); err != nil {
		t.Fatalf("ReadDir(.): %v", err)
	}
	data, err := fs.ReadFile(fsys, chunk)
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", chunk, err)
	}
	return srv.Requests(), data
}

// TestDiskObjects checks that a second process opening a remote
// repository reads its snapshot and manifests from the store on disk
// that the first one filled, with exactly the requests that remain: the
// refs (never kept, they change) and the chunk. It also checks what is
// kept: snapshots and manifests, never the repo file or refs/.
func TestDiskObjects(t *testing.T) {
	srv := fstest.NewHTTPServerFS(t, nil, os.DirFS(fstest.Fixture(t, "icechunk")))
	for _, tc := range []struct {
		repo        string
		first, next int64
	}{
		// v2: the repo file, the snapshot, a manifest and the chunk file;
		// then the repo file and the chunk file.
		{"test-repo-v2", 4, 2},
		// v1: the probes for a repo file and a legacy ref, the main
		// branch's ref.json, the snapshot, a manifest and the chunk file;
		// then the probes, ref.json and the chunk file.
		{"test-repo-v1", 6, 4},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			store, err := disk.Open(t.TempDir(), 0)
			if err != nil {
				t.Fatal(err)
			}
			url := srv.URL() + "/" + tc.repo + "/|icechunk:"
			const chunk = "group1/big_chunks/c/0/1" // stored in chunks/
			first, want := diskProcess(t, srv, store, url, chunk)
			log1 := srv.LogString()
			second, got := diskProcess(t, srv, store, url, chunk)
			t.Logf("requests: first process %d, second %d", first, second)
			if first != tc.first || second != tc.next {
				t.Errorf("requests: first process %d, second %d; want %d, %d\nfirst:\n%s\nsecond:\n%s",
					first, second, tc.first, tc.next, log1, srv.LogString())
			}
			if !bytes.Equal(got, want) || len(got) == 0 {
				t.Errorf("second process read %q, first %q", got, want)
			}
			keys := store.Keys()
			var snaps, mans int
			for _, k := range keys {
				name := k[strings.LastIndexByte(k, 0)+1:]
				switch {
				case strings.HasPrefix(name, "snapshots/"):
					snaps++
				case strings.HasPrefix(name, "manifests/"):
					mans++
				default:
					t.Errorf("kept %q, which is neither a snapshot nor a manifest", name)
				}
			}
			if snaps != 1 || mans != 1 {
				t.Errorf("kept %d snapshots and %d manifests, want 1 and 1: %q", snaps, mans, keys)
			}
		})
	}
}

// TestDiskObjectCorrupt checks that a kept object that does not decode,
// or that is another object, is a miss: the process reads the object from
// the repository, gets the right bytes, and keeps it anew for the next.
func TestDiskObjectCorrupt(t *testing.T) {
	srv := fstest.NewHTTPServerFS(t, nil, os.DirFS(fstest.Fixture(t, "icechunk")))
	url := srv.URL() + "/test-repo-v2/|icechunk:"
	const chunk = "group1/big_chunks/c/0/1"
	for _, corrupt := range []struct {
		name string
		edit func(keys []string, get func(string) []byte) map[string][]byte
	}{
		{"garbage", func(keys []string, get func(string) []byte) map[string][]byte {
			out := map[string][]byte{}
			for _, k := range keys {
				out[k] = []byte("ICE\xf0\x9f\xa7\x8aCHUNK not a snapshot at all")
			}
			return out
		}},
		{"swapped", func(keys []string, get func(string) []byte) map[string][]byte {
			// Each key gets a valid object that is not the one it names.
			out := map[string][]byte{}
			for i, k := range keys {
				out[k] = get(keys[(i+1)%len(keys)])
			}
			return out
		}},
		{"another object", func(keys []string, get func(string) []byte) map[string][]byte {
			// Each key gets a valid object of its kind with another id,
			// caught only by the id check.
			out := map[string][]byte{}
			for _, k := range keys {
				other := "snapshots/1CECHNKREP0F1RSTCMT0"
				if strings.Contains(k, "\x00manifests/") {
					other = "manifests/RZ09HJ4CVB3KZWKAJFX0"
				}
				if strings.HasSuffix(k, other) {
					t.Fatalf("the fixture's other object %s is the one kept", other)
				}
				b, err := os.ReadFile(fstest.Fixture(t, "icechunk/test-repo-v2/"+other))
				if err != nil {
					t.Fatal(err)
				}
				out[k] = b
			}
			return out
		}},
		{"truncated", func(keys []string, get func(string) []byte) map[string][]byte {
			out := map[string][]byte{}
			for _, k := range keys {
				b := get(k)
				out[k] = b[:len(b)/2]
			}
			return out
		}},
	} {
		t.Run(corrupt.name, func(t *testing.T) {
			store, err := disk.Open(t.TempDir(), 0)
			if err != nil {
				t.Fatal(err)
			}
			first, want := diskProcess(t, srv, store, url, chunk)
			keys := store.Keys()
			if len(keys) < 2 {
				t.Fatalf("kept %q, want a snapshot and a manifest", keys)
			}
			get := func(k string) []byte {
				b, ok := store.Get(k, 0)
				if !ok {
					t.Fatalf("Get(%q) missed", k)
				}
				return b
			}
			for k, b := range corrupt.edit(keys, get) {
				if err := store.Put(k, b); err != nil {
					t.Fatal(err)
				}
			}
			again, got := diskProcess(t, srv, store, url, chunk)
			if again != first || !bytes.Equal(got, want) {
				t.Errorf("over corrupt copies: %d requests, read %q; want %d (the first process's), %q\n%s",
					again, got, first, want, srv.LogString())
			}
			if now := store.Keys(); !slices.Equal(now, keys) {
				t.Errorf("keys after the rewrite %q, want %q", now, keys)
			}
			third, _ := diskProcess(t, srv, store, url, chunk)
			if third >= first {
				t.Errorf("after the rewrite: %d requests, want fewer than %d\n%s", third, first, srv.LogString())
			}
		})
	}
}
