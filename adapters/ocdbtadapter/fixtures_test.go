package ocdbtadapter_test

import (
	"archive/zip"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	stdfstest "testing/fstest"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/ocdbtadapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/fileroot"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	_ "github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// fixture returns the absolute slash path of a shared OCDBT fixture (see
// fstest.Fixture for when it is missing).
func fixture(t testing.TB, name string) string {
	t.Helper()
	return filepath.ToSlash(fstest.Fixture(t, "ocdbt/"+name))
}

// readDirFiles returns the files under dir, keyed by slash path.
func readDirFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// multiFiles returns the files of version n of a multi-version database.
func multiFiles(n int) map[string][]byte {
	files := map[string][]byte{}
	for i := 1; i <= n; i++ {
		files[fmt.Sprintf("key%d", i)] = fmt.Appendf(nil, "version %d", i)
	}
	return files
}

func openFS(t testing.TB, pipeline string) *vfs.FS {
	t.Helper()
	return openFSWith(t, pipeline, nil)
}

func openFSWith(t testing.TB, pipeline string, o *vfs.Options) *vfs.FS {
	t.Helper()
	fsys, err := vfs.OpenFS(context.Background(), pipeline, o)
	if err != nil {
		t.Fatalf("OpenFS(%q): %v", pipeline, err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// rootVersion returns the *Version the root's Stat carries.
func rootVersion(t testing.TB, fsys *vfs.FS) *ocdbtadapter.Version {
	t.Helper()
	info, err := fsys.Stat(".")
	if err != nil {
		t.Fatal(err)
	}
	o, ok := info.Sys().(*vfs.Origin)
	if !ok {
		t.Fatalf("Stat(.).Sys() = %T, want *vfs.Origin", info.Sys())
	}
	v, ok := o.Header.(*ocdbtadapter.Version)
	if !ok {
		t.Fatalf("Stat(.).Sys().Header = %T, want *ocdbtadapter.Version", o.Header)
	}
	return v
}

func TestFilesDatabases(t *testing.T) {
	want := readDirFiles(t, fixture(t, "expected/files"))
	for _, db := range []string{"files_high_arity", "files_min_arity"} {
		t.Run(db, func(t *testing.T) {
			pipeline := "file:" + fixture(t, db+".ocdbt") + "/|ocdbt:"
			fstest.Run(t, fstest.Case{Pipeline: pipeline, Files: want, Exhaustive: true})

			fsys := openFS(t, pipeline)
			ents, err := fsys.ReadDir(".")
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range ents {
				names = append(names, fmt.Sprintf("%s:%v", e.Name(), e.IsDir()))
			}
			if got, want := strings.Join(names, " "), "#:false a:false b:false baz:true c:false empty:false"; got != want {
				t.Errorf("ReadDir(.) = %s, want %s", got, want)
			}
			for _, name := range []string{"zzz", "a0", "baz/q", "bazz"} {
				if _, err := fsys.Stat(name); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("Stat(%q) error = %v, want fs.ErrNotExist", name, err)
				}
			}
			var ot *ocdbtadapter.Tree
			if !fsys.As(&ot) {
				t.Fatal("FS.As found no *ocdbtadapter.Tree")
			}
			for _, key := range []string{"baz", "baz/", "zzz", "a0", ""} {
				if _, err := ot.OpenKey(context.Background(), key); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("OpenKey(%q) error = %v, want fs.ErrNotExist", key, err)
				}
			}
			// The key "#" through a pipeline: written %23.
			f, err := vfs.Open(context.Background(), pipeline+"%23", nil)
			if err != nil {
				t.Fatalf("OpenFile(...|ocdbt:%%23): %v", err)
			}
			if f.Size() != 0 {
				t.Errorf("size of # = %d, want 0", f.Size())
			}
			f.Close()
			if v := rootVersion(t, fsys); v.Generation != 1 || v.NumKeys != 8 {
				t.Errorf("root version = %+v, want generation 1 with 8 keys", v)
			}
		})
	}
}

func TestOutOfLineValues(t *testing.T) {
	fsys := openFS(t, "file:"+fixture(t, "files_min_arity.ocdbt")+"/|ocdbt:")
	for i, name := range []string{"a", "b", "c"} {
		info, err := fsys.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		v := info.Sys().(*vfs.Origin).Header.(*ocdbtadapter.Value)
		if v.DataFile != "d/f6d9da936d3f6f58b667ca9d54a38667" || v.Offset != int64(3*i) || v.Key != name {
			t.Errorf("Stat(%q) value = %+v, want d/f6d9da936d3f6f58b667ca9d54a38667 at %d", name, v, 3*i)
		}
	}
	info, err := openFS(t, "file:"+fixture(t, "files_high_arity.ocdbt")+"/|ocdbt:").Stat("a")
	if err != nil {
		t.Fatal(err)
	}
	if v := info.Sys().(*vfs.Origin).Header.(*ocdbtadapter.Value); v.DataFile != "" {
		t.Errorf("files_high_arity a: value = %+v, want inline", v)
	}
}

func TestOMEZarr(t *testing.T) {
	want := readDirFiles(t, fixture(t, "expected/ome_zarr_simple_0.5"))
	if len(want) != 10 {
		t.Fatalf("expected/ome_zarr_simple_0.5 has %d files, want 10", len(want))
	}
	pipeline := "file:" + fixture(t, "ome_zarr_simple_0.5.ocdbt") + "/|ocdbt:"
	fstest.Run(t, fstest.Case{Pipeline: pipeline, Files: want, Exhaustive: true})

	fsys := openFS(t, pipeline)
	b, err := fsys.ReadFile("scale0/image/c/0/0")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 200 {
		t.Fatalf("scale0/image/c/0/0 is %d bytes, want 200", len(b))
	}
	for i := range 100 {
		if v := int(b[2*i]) | int(b[2*i+1])<<8; v != i {
			t.Fatalf("scale0/image/c/0/0[%d] = %d, want %d", i, v, i)
		}
	}
	for name, size := range map[string]int64{"scale1/image/c/0/0": 50, "scale2/image/c/0/0": 8} {
		info, err := fsys.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if v := info.Sys().(*vfs.Origin).Header.(*ocdbtadapter.Value); v.DataFile != "" || info.Size() != size {
			t.Errorf("Stat(%q) = %d bytes %+v, want %d bytes inline", name, info.Size(), v, size)
		}
	}
	// A path inside the database: ocdbt:scale0/image/.
	sub := openFS(t, "file:"+fixture(t, "ome_zarr_simple_0.5.ocdbt")+"/|ocdbt:scale0/image/")
	if _, err := sub.Stat("zarr.json"); err != nil {
		t.Errorf("ocdbt:scale0/image/ Stat(zarr.json): %v", err)
	}
}

var multiDBs = []string{"multi_version_high_arity", "multi_version_low_arity"}

// TestMultiVersionAll checks every version of both multi-version databases:
// keys key1..keyN in byte order with values "version I", the key count,
// and testing/fstest.TestFS.
func TestMultiVersionAll(t *testing.T) {
	for _, db := range multiDBs {
		t.Run(db, func(t *testing.T) {
			dir := fixture(t, db+".ocdbt")
			for n := 1; n <= 200; n++ {
				pipeline := fmt.Sprintf("file:%s/|ocdbt://v%d/", dir, n)
				fsys := openFS(t, pipeline)
				want := multiFiles(n)
				ents, err := fsys.ReadDir(".")
				if err != nil {
					t.Fatal(err)
				}
				names := make([]string, len(ents))
				for i, e := range ents {
					names[i] = e.Name()
				}
				if wantNames := slices.Sorted(func(yield func(string) bool) {
					for k := range want {
						if !yield(k) {
							return
						}
					}
				}); !slices.Equal(names, wantNames) {
					t.Fatalf("v%d: keys = %v, want %v", n, names, wantNames)
				}
				if v := rootVersion(t, fsys); v.Generation != uint64(n) || v.NumKeys != uint64(n) {
					t.Fatalf("v%d: root version = %+v", n, v)
				}
				mapFS := stdfstest.MapFS{}
				for k, v := range want {
					mapFS[k] = &stdfstest.MapFile{Data: v}
				}
				for k := range want {
					got, err := fsys.ReadFile(k)
					if err != nil || string(got) != string(want[k]) {
						t.Fatalf("v%d: ReadFile(%q) = %q, %v, want %q", n, k, got, err, want[k])
					}
				}
				if err := stdfstest.TestFS(fsys, names...); err != nil {
					t.Fatalf("v%d: TestFS: %v", n, err)
				}
				fsys.Close()
			}
		})
	}
}

// TestMultiVersionConformance runs the whole conformance kit on a few
// versions, including the first, the last and ones at version-tree edges.
func TestMultiVersionConformance(t *testing.T) {
	for _, db := range multiDBs {
		for _, n := range []int{1, 2, 16, 17, 128, 192, 193, 199, 200} {
			t.Run(fmt.Sprintf("%s/v%d", db, n), func(t *testing.T) {
				fstest.Run(t, fstest.Case{
					Pipeline:   fmt.Sprintf("file:%s/|ocdbt://v%d/", fixture(t, db+".ocdbt"), n),
					Files:      multiFiles(n),
					Exhaustive: true,
				})
			})
		}
	}
}

// commitTimes reads expected/multi_version_commit_times.tsv.
func commitTimes(t testing.TB) map[string]map[int]string {
	t.Helper()
	f, err := os.Open(fixture(t, "expected/multi_version_commit_times.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[int]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "database\t") || line == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		n, err := strconv.Atoi(cols[1])
		if err != nil {
			t.Fatalf("bad line %q", line)
		}
		db := strings.TrimSuffix(cols[0], ".ocdbt")
		if out[db] == nil {
			out[db] = map[int]string{}
		}
		out[db][n] = cols[2]
	}
	return out
}

func TestCommitTimes(t *testing.T) {
	times := commitTimes(t)
	ctx := context.Background()
	for _, db := range multiDBs {
		t.Run(db, func(t *testing.T) {
			dir := fixture(t, db+".ocdbt")
			if len(times[db]) != 100 {
				t.Fatalf("tsv has %d times for %s, want 100", len(times[db]), db)
			}
			loc, err := fileroot.OpenPath(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			tree := driver.SubTree(loc.Tree, loc.Path)
			log, err := ocdbtadapter.Log(ctx, tree, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(log) != 200 {
				t.Fatalf("Log: %d versions, want 200", len(log))
			}
			for i, v := range log {
				if v.Generation != uint64(i+1) || v.NumKeys != uint64(i+1) {
					t.Fatalf("Log()[%d] = %+v", i, v)
				}
				if i > 0 && !v.CommitTime.After(log[i-1].CommitTime) {
					t.Errorf("Log()[%d] commit time %s not after %s", i, v.TimeText(), log[i-1].TimeText())
				}
			}
			for n, want := range times[db] {
				if got := log[n-1].TimeText(); got != want {
					t.Errorf("v%d commit time = %s, want %s", n, got, want)
				}
			}
			open := func(version string) (*ocdbtadapter.Tree, error) {
				return ocdbtadapter.Open(ctx, tree, version, nil)
			}
			for _, v := range log {
				// T = commit(vN) gives vN; T - 1ns gives v(N-1).
				for _, tc := range []struct {
					at   time.Time
					want uint64
				}{{v.CommitTime, v.Generation}, {v.CommitTime.Add(-time.Nanosecond), v.Generation - 1}} {
					text := tc.at.UTC().Format("2006-01-02T15:04:05.000000000Z")
					got, err := open(text)
					if tc.want == 0 {
						if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "v1..v200") {
							t.Errorf("Open(%s) error = %v, want fs.ErrNotExist naming v1..v200", text, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("Open(%s): %v", text, err)
					}
					if got.Version().Generation != tc.want {
						t.Errorf("Open(%s) = %v, want v%d", text, got.Version(), tc.want)
					}
					got.Close()
				}
			}
			for _, tc := range []struct {
				version string
				want    uint64 // 0: does not exist
			}{
				{"2262-01-01T00:00:00Z", 200},
				{"2999-12-31T23:59:59.999999999999Z", 200},
				{"2025-01-30T21:32:58Z", 0},
				{"1969-12-31T23:59:59Z", 0},
				{"1970-01-01T00:00:00Z", 0},
				{"v201", 0},
				{"v18446744073709551615", 0},
				{"v1", 1},
				{"v200", 200},
				{"", 200},
				{log[99].TimeText(), 100},
				{log[99].CommitTime.Format("2006-01-02T15:04:05Z"), 0}, // filled in below
			} {
				if tc.version == log[99].CommitTime.Format("2006-01-02T15:04:05Z") {
					// Whole seconds: the last version at or before them.
					cut := log[99].CommitTime.Truncate(time.Second)
					for _, v := range log {
						if !v.CommitTime.After(cut) {
							tc.want = v.Generation
						}
					}
				}
				got, err := open(tc.version)
				if tc.want == 0 {
					if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "v1..v200") {
						t.Errorf("Open(%q) error = %v, want fs.ErrNotExist naming v1..v200", tc.version, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("Open(%q): %v", tc.version, err)
					continue
				}
				if got.Version().Generation != tc.want {
					t.Errorf("Open(%q) = %v, want v%d", tc.version, got.Version(), tc.want)
				}
				got.Close()
			}
			// Generation 0 cannot be written (SPEC: N >= 1).
			if _, err := open("v0"); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("Open(v0) error = %v, want fs.ErrInvalid", err)
			}
			// Through a pipeline, the time of v8 as neuroglancer prints it.
			fsys := openFS(t, "file:"+dir+"/|ocdbt://"+log[7].TimeText()+"/")
			if v := rootVersion(t, fsys); v.Generation != 8 {
				t.Errorf("ocdbt://%s/ = v%d, want v8", log[7].TimeText(), v.Generation)
			}
		})
	}
}

// TestInZip reads the fixtures from a zip built at test time in the memory
// root: memory:/.../x.zip|zip:db.ocdbt/|ocdbt:.
func TestInZip(t *testing.T) {
	var buf strings.Builder
	zw := zip.NewWriter(&buf)
	for _, db := range []string{"files_min_arity", "ome_zarr_simple_0.5", "multi_version_low_arity"} {
		for name, b := range readDirFiles(t, fixture(t, db+".ocdbt")) {
			w, err := zw.Create(db + ".ocdbt/" + name)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(b)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := fstest.MapFiles(t, map[string][]byte{"x.zip": []byte(buf.String())})
	zipURL := "memory:/" + dir + "/x.zip|zip:"
	fstest.Run(t, fstest.Case{
		Pipeline:   zipURL + "files_min_arity.ocdbt/|ocdbt:",
		Files:      readDirFiles(t, fixture(t, "expected/files")),
		Exhaustive: true,
	})
	fstest.Run(t, fstest.Case{
		Pipeline:   zipURL + "ome_zarr_simple_0.5.ocdbt/|ocdbt:",
		Files:      readDirFiles(t, fixture(t, "expected/ome_zarr_simple_0.5")),
		Exhaustive: true,
	})
	for _, n := range []int{1, 100, 200} {
		fstest.Run(t, fstest.Case{
			Pipeline:   fmt.Sprintf("%smulti_version_low_arity.ocdbt/|ocdbt://v%d/", zipURL, n),
			Files:      multiFiles(n),
			Exhaustive: true,
		})
	}
}

func TestMatchDir(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{"files_high_arity.ocdbt", true},
		{"multi_version_low_arity.ocdbt", true},
		{"expected", false},
		{"files_high_arity.ocdbt/d", false},
	} {
		loc, err := fileroot.OpenPath(context.Background(), fixture(t, tc.dir))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ocdbtadapter.MatchDir(context.Background(), driver.SubTree(loc.Tree, loc.Path))
		if err != nil || got != tc.want {
			t.Errorf("MatchDir(%s) = %v, %v, want %v", tc.dir, got, err, tc.want)
		}
	}
}

// TestDetect opens a database directory with no adapter named: the ocdbt
// format is detected and appended.
func TestDetect(t *testing.T) {
	dir := fixture(t, "files_high_arity.ocdbt")
	fsys := openFS(t, "file:"+dir+"/")
	if got, want := fsys.Pipeline().String(), "file:"+dir+"/|ocdbt:"; got != want {
		t.Errorf("Pipeline() = %s, want %s", got, want)
	}
	if b, err := fsys.ReadFile("a"); err != nil || string(b) != "abc" {
		t.Errorf("ReadFile(a) = %q, %v, want abc", b, err)
	}
}
