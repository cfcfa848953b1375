package composition_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/adapters/ocdbtadapter"
	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// multiKeys are the keys of version n of the multi-version databases,
// in byte order: key1..keyN.
func multiKeys(n int) []string {
	keys := make([]string, n)
	for i := range n {
		keys[i] = "key" + strconv.Itoa(i+1)
	}
	slices.Sort(keys)
	return keys
}

// checkMultiVersion checks that fsys is version n of a multi-version
// database: exactly the keys key1..keyN, keyI = "version I".
func checkMultiVersion(t *testing.T, fsys fs.FS, n int) {
	t.Helper()
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatalf("ReadDir(.) error = %v", err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := multiKeys(n); !slices.Equal(names, want) {
		t.Fatalf("v%d: ReadDir(.) = %d names %v, want %d", n, len(names), names[:min(len(names), 5)], len(want))
	}
	for _, i := range []int{1, (n + 1) / 2, n} {
		name := "key" + strconv.Itoa(i)
		if got, want := string(readFile(t, fsys, name)), fmt.Sprintf("version %d", i); got != want {
			t.Errorf("v%d: ReadFile(%q) = %q, want %q", n, name, got, want)
		}
	}
}

// commitTimes reads expected/multi_version_commit_times.tsv: database
// name -> generation -> commit time.
func commitTimes(t *testing.T) map[string]map[int]time.Time {
	t.Helper()
	f, err := fixtureFS(t).Open("ocdbt/expected/multi_version_commit_times.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[int]time.Time{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 {
			continue
		}
		gen, err := strconv.Atoi(strings.TrimPrefix(cols[1], "v"))
		if err != nil {
			continue // the header
		}
		ts, err := time.Parse(time.RFC3339Nano, cols[2])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if out[cols[0]] == nil {
			out[cols[0]] = map[int]time.Time{}
		}
		out[cols[0]][gen] = ts
	}
	if len(out) == 0 {
		t.Fatal("no commit times in multi_version_commit_times.tsv")
	}
	return out
}

// TestOCDBTOverHTTP reads the multi-version databases over http: at
// generations, at commit times, and the latest version.
func TestOCDBTOverHTTP(t *testing.T) {
	srv := server(t)
	for _, db := range []string{"multi_version_low_arity", "multi_version_high_arity"} {
		base := srv.URL() + "/ocdbt/" + db + ".ocdbt/"
		t.Run(db, func(t *testing.T) {
			for _, n := range []int{1, 2, 99, 100, 199, 200} {
				checkMultiVersion(t, openFS(t, base+"|ocdbt://v"+strconv.Itoa(n)+"/", opts()), n)
			}
			checkMultiVersion(t, openFS(t, base+"|ocdbt:", opts()), 200)
			// Detection through a Stat of manifest.ocdbt: no listing.
			checkMultiVersion(t, openFS(t, base, opts()), 200)
		})
	}
}

// TestOCDBTCommitTimeOverHTTP: a commit time selects the version
// committed then; one nanosecond earlier, the version before.
func TestOCDBTCommitTimeOverHTTP(t *testing.T) {
	srv := server(t)
	times := commitTimes(t)
	for db, gens := range times {
		base := srv.URL() + "/ocdbt/" + strings.TrimSuffix(db, ".ocdbt") + ".ocdbt/"
		t.Run(db, func(t *testing.T) {
			for _, n := range []int{1, 2, 50, 151, 200} {
				ts, ok := gens[n]
				if !ok {
					t.Fatalf("no commit time for v%d", n)
				}
				for _, tc := range []struct {
					at   time.Time
					want int
				}{{ts, n}, {ts.Add(-time.Nanosecond), n - 1}} {
					p := base + "|ocdbt://" + tc.at.UTC().Format("2006-01-02T15:04:05.000000000Z") + "/"
					fsys, err := vfs.OpenFS(context.Background(), p, opts())
					if tc.want == 0 {
						if !errors.Is(err, fs.ErrNotExist) {
							t.Errorf("OpenFS(%s) error = %v, want fs.ErrNotExist", p, err)
						}
						if err == nil {
							fsys.Close()
						}
						continue
					}
					if err != nil {
						t.Fatalf("OpenFS(%s) error = %v", p, err)
					}
					info, err := fsys.Stat(".")
					if err != nil {
						t.Fatal(err)
					}
					if v := versionOf(info); v == nil || v.Generation != uint64(tc.want) {
						t.Errorf("%s: Stat(.).Sys() = %+v, want generation %d", p, v, tc.want)
					}
					fsys.Close()
				}
			}
		})
	}
}

// versionOf returns the *ocdbtadapter.Version behind Stat(".") of a tree.
func versionOf(info fs.FileInfo) *ocdbtadapter.Version {
	if o, ok := info.Sys().(*vfs.Origin); ok {
		v, _ := o.Header.(*ocdbtadapter.Version)
		return v
	}
	v, _ := info.Sys().(*ocdbtadapter.Version)
	return v
}

// TestOCDBTFilesOverHTTP: the files_* databases equal expected/files/,
// through the conformance kit.
func TestOCDBTFilesOverHTTP(t *testing.T) {
	srv := server(t)
	want := treeFiles(t, fixtureFS(t), "ocdbt/expected/files", "")
	for _, db := range []string{"files_min_arity", "files_high_arity"} {
		t.Run(db, func(t *testing.T) {
			fstest.Run(t, fstest.Case{Pipeline: srv.URL() + "/ocdbt/" + db + ".ocdbt/|ocdbt:", Options: opts(), Files: want, Exhaustive: true})
		})
	}
}

// TestOCDBTRequestsOverHTTP counts the requests of reading OCDBT over
// http. Every fixture file is smaller than the first (suffix) read, so
// each file costs one request however many nodes it holds, and nothing
// is fetched twice.
func TestOCDBTRequestsOverHTTP(t *testing.T) {
	srv := server(t)
	db := srv.URL() + "/ocdbt/multi_version_low_arity.ocdbt/"
	o := opts()

	// v100 of the low-arity database: the manifest, then six version
	// nodes (heights 6..1), each in a data file of its own.
	var fsys *vfs.FS
	n := counted(srv, func() { fsys = openFS(t, db+"|ocdbt://v100/", o) })
	wantRequests(t, srv, "open v100", n, 7)
	// One key: the B+tree leaf (the value is inline).
	n = counted(srv, func() { readFile(t, fsys, "key1") })
	wantRequests(t, srv, "read key1 of v100", n, 1)
	n = counted(srv, func() { checkMultiVersion(t, fsys, 100) })
	wantRequests(t, srv, "list and read v100 again", n, 0)

	// The latest version: the manifest holds it inline; one leaf.
	n = counted(srv, func() { readFile(t, openFS(t, db+"|ocdbt:", opts()), "key200") })
	wantRequests(t, srv, "read key200 of the latest version", n, 2)

	// Detection without a listing: a Stat of snapshots (Icechunk's
	// marker, 404; the store cannot be listed, so Icechunk probes its
	// repo and refs/branch.main/ref.json files, 404), then
	// manifest.ocdbt, which the adapter reads from the same head.
	n = counted(srv, func() { openFS(t, db, opts()) })
	wantRequests(t, srv, "detect and open", n, 4)

	// files_min_arity: 15 nodes and 3 out-of-line values in one data
	// file of 1017 bytes: the manifest and that file, then nothing.
	mfs := srv.URL() + "/ocdbt/files_min_arity.ocdbt/|ocdbt:"
	n = counted(srv, func() {
		fsys := openFS(t, mfs, opts())
		if err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				_, err = fs.ReadFile(fsys, name)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	})
	wantRequests(t, srv, "walk and read files_min_arity", n, 2)
}

// TestOCDBTSmallReadsOverHTTP reads with a first read of 64 bytes and
// blocks of 256 bytes, so that nodes come through the block cache: each
// node read is one ReadAt of its byte range, fetched in one request,
// and no block is fetched twice.
func TestOCDBTSmallReadsOverHTTP(t *testing.T) {
	srv := server(t)
	o := opts()
	ho := o.Schemes["http"].(*httproot.Options)
	ho.Remote.SuffixSize = 64
	ho.Remote.Cache = cache.New(cache.Config{BlockSize: 256})
	db := srv.URL() + "/ocdbt/multi_version_low_arity.ocdbt/"
	var fsys *vfs.FS
	n := counted(srv, func() {
		fsys = openFS(t, db+"|ocdbt://v1/", o)
		checkMultiVersion(t, fsys, 1)
	})
	// Eight files (manifest, seven version nodes, the leaf): a 64-byte
	// head each, and one block fetch each but for the 46-byte leaf file.
	wantRequests(t, srv, "v1 with 64-byte heads", n, 15+2)
	seen := map[string]bool{}
	for _, r := range srv.Log() {
		k := r.Path + " " + r.Range
		if seen[k] {
			t.Errorf("fetched twice: %s", k)
		}
		seen[k] = true
	}
	n = counted(srv, func() { checkMultiVersion(t, fsys, 1) })
	wantRequests(t, srv, "read v1 again", n, 0)
}

// TestOCDBTOMEZarrOverHTTP: the OME-Zarr image inside the OCDBT
// database, through ocdbt: and zarr3: over http.
func TestOCDBTOMEZarrOverHTTP(t *testing.T) {
	srv := server(t)
	p := srv.URL() + "/ocdbt/ome_zarr_simple_0.5.ocdbt/|ocdbt:|zarr3:scale0/image"
	b := readArray(t, p, "")
	if len(b) != 200 {
		t.Fatalf("%s: %d bytes, want 200", p, len(b))
	}
	for i := range 100 {
		if v := int(b[2*i]) | int(b[2*i+1])<<8; v != i {
			t.Fatalf("%s: element %d = %d, want %d", p, i, v, i)
		}
	}
	want := treeFiles(t, fixtureFS(t), "ocdbt/expected/ome_zarr_simple_0.5", "")
	fsys := openFS(t, srv.URL()+"/ocdbt/ome_zarr_simple_0.5.ocdbt/|ocdbt:", opts())
	for name, w := range want {
		if got := readFile(t, fsys, name); string(got) != string(w) {
			t.Errorf("ReadFile(%q) = %d bytes, want %d", name, len(got), len(w))
		}
	}
}
