package composition_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// The HDF5 tests compare pipefs with h5py. scripts/h5pydump.py prints
// what h5py sees in a file (every group, link and dataset; each dataset's
// shape, dtype, layout, chunks, filters and the SHA-256 of its elements in
// C order and stored byte order); pipefs must list every dataset with the
// same shape and dtype and read every fixed-size dataset that h5py reads
// to the same bytes. The files are the shared fixtures (hdf5/), the h5py
// fixtures of adapters/hdf5adapter/testdata/h5py (scripts/hdf5fixtures.py)
// and, when PIPEFS_CORPUS is set, the real-world files of its hdf5/
// directory (scripts/corpus.sh). With python3 and h5py installed (always
// in CI) h5pydump.py runs live; without them the committed dumps of the
// two fixture sets are used and the corpus is skipped.

// h5Timeout bounds every open, stat and read of one object: pipefs must
// neither hang nor loop on any file.
const h5Timeout = 60 * time.Second

// h5pyFixtures is the directory of the h5py fixtures, relative to this
// package, and h5pyDumps that of their committed dumps.
const (
	h5pyFixtures = "../adapters/hdf5adapter/testdata/h5py"
	h5pyDumps    = h5pyFixtures + "/dumps"
)

// h5Decoded are the filters pipefs must decode: deflate, shuffle,
// fletcher32, szip, n-bit, scale-offset, lzo, lzf, blosc, bzip2, lz4 and
// zstd. A read of a dataset with any other filter (zfp, sz, ...) may fail
// with errors.ErrUnsupported instead, naming the filter.
var h5Decoded = map[uint16]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 305: true, 32000: true, 32001: true, 307: true, 32004: true, 32015: true}

// h5File is what scripts/h5pydump.py prints for one file.
type h5File struct {
	File     string                `json:"file"`
	Error    string                `json:"error"`
	Groups   []string              `json:"groups"`
	Links    map[string]h5Link     `json:"links"`
	Datasets map[string]*h5Dataset `json:"datasets"`
}

// h5Link is a link that is not a hard link to a new object.
type h5Link struct {
	Kind     string `json:"kind"` // soft, external, hard (to an object seen before), error
	Target   string `json:"target"`
	Resolves string `json:"resolves"` // soft: dataset, group, datatype or "" (dangling)
	File     string `json:"file"`
	Path     string `json:"path"`
}

// h5Dataset is one dataset as h5py sees it.
type h5Dataset struct {
	Shape      []int64 `json:"shape"` // nil: a null dataspace; empty: a scalar
	MaxShape   []int64 `json:"maxshape"`
	DType      *string `json:"dtype"`
	Class      string  `json:"class"`
	Fixed      bool    `json:"fixed"`
	Layout     string  `json:"layout"`
	Chunks     []int64 `json:"chunks"`
	ChunkIndex string  `json:"chunk_index"`
	Filters    []struct {
		ID   uint16 `json:"id"`
		Name string `json:"name"`
	} `json:"filters"`
	SHA256  string `json:"sha256"`
	Error   string `json:"error"`
	Skipped string `json:"skipped"`
	SameAs  string `json:"same_as"`
}

// h5Meta is what pipefs says of a dataset: the fields of its
// *hdf5adapter.Dataset that the tests compare.
type h5Meta struct {
	Shape, ChunkShape  []int64
	NumPy              string
	Layout, ChunkIndex string
	Filters            []uint16
}

// h5MetaOf returns the dataset description in the Sys value of info (a
// *vfs.Origin whose Header is a *hdf5adapter.Dataset). The fields are
// read by name, so that a renamed field fails the tests that need it, and
// nothing else.
func h5MetaOf(info fs.FileInfo) (*h5Meta, error) {
	o, ok := info.Sys().(*vfs.Origin)
	if !ok || o.Header == nil {
		return nil, fmt.Errorf("Sys() is %T, want a *vfs.Origin with a Header", info.Sys())
	}
	v := reflect.ValueOf(o.Header)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct ||
		v.Elem().Type().Name() != "Dataset" || !strings.HasSuffix(v.Elem().Type().PkgPath(), "/hdf5adapter") {
		return nil, fmt.Errorf("Sys().Header is %T, want *hdf5adapter.Dataset", o.Header)
	}
	v = v.Elem()
	var m h5Meta
	var bad []string
	get := func(v reflect.Value, name string, kind reflect.Kind) reflect.Value {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Kind() != kind {
			bad = append(bad, name)
			return reflect.Value{}
		}
		return f
	}
	ints := func(name string) []int64 {
		f := get(v, name, reflect.Slice)
		if !f.IsValid() || f.Type().Elem().Kind() != reflect.Int64 {
			return nil
		}
		return f.Convert(reflect.TypeOf([]int64(nil))).Interface().([]int64)
	}
	str := func(v reflect.Value, name string) string {
		if f := get(v, name, reflect.String); f.IsValid() {
			return f.String()
		}
		return ""
	}
	m.Shape, m.ChunkShape = ints("Shape"), ints("ChunkShape")
	if dt := get(v, "DType", reflect.Struct); dt.IsValid() {
		m.NumPy = str(dt, "NumPy")
	}
	m.Layout, m.ChunkIndex = str(v, "Layout"), str(v, "ChunkIndex")
	if filters := get(v, "Filters", reflect.Slice); filters.IsValid() {
		for i := range filters.Len() {
			f := filters.Index(i)
			if f.Kind() == reflect.Pointer {
				f = f.Elem()
			}
			if id := get(f, "ID", reflect.Uint16); id.IsValid() {
				m.Filters = append(m.Filters, uint16(id.Uint()))
			}
		}
	}
	if bad != nil {
		return &m, fmt.Errorf("hdf5adapter.Dataset lacks the fields %v (or their types changed)", bad)
	}
	return &m, nil
}

// within runs f with a context that ends after h5Timeout and returns its
// error; a panic in f, or f still running at the deadline, is an error.
func within(f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), h5Timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		done <- f(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// f may still return a context error just after the deadline.
		select {
		case err := <-done:
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("hang: still running after %v (%w)", h5Timeout, err)
			}
			return err
		case <-time.After(5 * time.Second):
			return fmt.Errorf("hang: still running %v after its context ended", h5Timeout+5*time.Second)
		}
	}
}

// h5py returns the python3 that can run scripts/h5pydump.py (has h5py),
// or "": the first python3 in PATH that imports h5py, else Debian's
// /usr/bin/python3 (python3-h5py installs there, and PATH may name
// another python3 first).
var h5py = sync.OnceValue(func() string {
	candidates := []string{"/usr/bin/python3"}
	if py, err := exec.LookPath("python3"); err == nil {
		candidates = append([]string{py}, candidates...)
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import h5py").Run() == nil {
			return py
		}
	}
	return ""
})

// needH5py returns python3's path, or "" outside CI when h5py is missing.
func needH5py(t *testing.T) string {
	t.Helper()
	py := h5py()
	if py == "" && fstest.InCI() {
		fstest.NeedTool(t, "python3")
		fstest.Unavailable(t, "h5py is not installed (Debian: python3-h5py hdf5-filter-plugin)")
	}
	return py
}

// h5pyDump runs scripts/h5pydump.py on files and returns its dump of
// each, by path.
func h5pyDump(t *testing.T, py string, files []string) map[string]*h5File {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(py, append([]string{"../scripts/h5pydump.py"}, files...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/h5pydump.py: %v\n%s", err, stderr.Bytes())
	}
	var out struct {
		H5py, HDF5 string
		Files      []*h5File `json:"files"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("scripts/h5pydump.py printed no JSON: %v", err)
	}
	byPath := map[string]*h5File{}
	for _, f := range out.Files {
		byPath[f.File] = f
	}
	return byPath
}

// committedDump reads the committed dump dir/NAME.json of file.
func committedDump(t *testing.T, dir, file string) *h5File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.Base(file)+".json"))
	if err != nil {
		t.Fatalf("no committed h5py dump of %s (run scripts/h5pydump.py --out-dir %s): %v", file, dir, err)
	}
	var f h5File
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s.json: %v", file, err)
	}
	return &f
}

// h5Files lists the files of dir whose names match one of the patterns.
func h5Files(t *testing.T, dir string, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, p := range patterns {
		m, err := filepath.Glob(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	if len(files) == 0 {
		t.Fatalf("no HDF5 files %v in %s", patterns, dir)
	}
	return files
}

// h5Stats counts what a comparison saw, for the log.
type h5Stats struct {
	files, datasets, listed, read, agree, unsupported int
}

// compareH5 compares pipefs with the h5py dumps of files, one subtest
// per file.
func compareH5(t *testing.T, files []string, dumps map[string]*h5File, base string) {
	var st h5Stats
	for _, file := range files {
		want := dumps[file]
		rel, _ := filepath.Rel(base, file)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			if want == nil {
				t.Fatalf("h5pydump.py printed nothing for %s", file)
			}
			compareH5File(t, file, want, &st)
		})
	}
	t.Logf("%d files, %d datasets h5py lists: %d listed by pipefs with h5py's shape and dtype; %d fixed-size datasets h5py reads, %d read identically by pipefs, %d refused with errors.ErrUnsupported for a filter pipefs need not decode",
		st.files, st.datasets, st.listed, st.read, st.agree, st.unsupported)
}

// compareH5File opens file with pipefs and checks it against want.
func compareH5File(t *testing.T, file string, want *h5File, st *h5Stats) {
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	pipeline := "file:" + filepath.ToSlash(abs) + "|hdf5:"
	var fsys *vfs.FS
	err = within(func(ctx context.Context) error {
		var err error
		fsys, err = vfs.OpenFS(ctx, pipeline, nil)
		return err
	})
	if want.Error != "" {
		// h5py cannot open it: pipefs must fail cleanly, or open it.
		if err != nil && (strings.HasPrefix(err.Error(), "panic") || strings.HasPrefix(err.Error(), "hang")) {
			t.Errorf("%s (h5py: %s): %v", pipeline, want.Error, err)
		}
		if fsys != nil {
			fsys.Close()
		}
		return
	}
	if err != nil {
		t.Fatalf("OpenFS(%s): %v (h5py opens it)", pipeline, err)
	}
	defer fsys.Close()
	st.files++

	name := func(p string) string {
		if p = strings.TrimPrefix(p, "/"); p == "" {
			return "."
		}
		return p
	}
	stat := func(p string) (fs.FileInfo, error) {
		var info fs.FileInfo
		err := within(func(ctx context.Context) error {
			var err error
			info, err = fsys.WithContext(ctx).Stat(name(p))
			return err
		})
		return info, err
	}
	read := func(p string) ([]byte, error) {
		var b []byte
		err := within(func(ctx context.Context) error {
			var err error
			b, err = fsys.WithContext(ctx).ReadFile(name(p))
			return err
		})
		return b, err
	}

	for _, g := range want.Groups {
		if info, err := stat(g); err != nil {
			t.Errorf("group %s: %v", g, err)
		} else if !info.IsDir() {
			t.Errorf("group %s: mode %v, want a directory", g, info.Mode())
		}
	}

	for _, p := range slices.Sorted(maps.Keys(want.Datasets)) {
		st.datasets++
		if checkH5Dataset(t, p, want.Datasets[p], want, stat, read, st) {
			st.listed++
		}
	}

	for _, p := range slices.Sorted(maps.Keys(want.Links)) {
		l := want.Links[p]
		switch {
		case l.Kind == "soft" && l.Resolves == "dataset":
			// Followed: the link reads as its target.
			target := l.Target
			if !strings.HasPrefix(target, "/") {
				target = path.Join(path.Dir(p), target)
			}
			info, err := stat(p)
			if err != nil {
				t.Errorf("soft link %s -> %s: %v", p, l.Target, err)
				continue
			}
			if !info.Mode().IsRegular() {
				t.Errorf("soft link %s -> %s: mode %v, want the dataset's", p, l.Target, info.Mode())
				continue
			}
			if d := want.Datasets[path.Clean(target)]; d != nil && d.SHA256 != "" {
				if b, err := read(p); err != nil {
					t.Errorf("soft link %s -> %s: %v", p, l.Target, err)
				} else if got := sha256Hex(b); got != d.SHA256 {
					t.Errorf("soft link %s -> %s: sha256 %s, h5py %s", p, l.Target, got, d.SHA256)
				}
			}
		case l.Kind == "soft" && l.Resolves == "group":
			if info, err := stat(p); err != nil {
				t.Errorf("soft link %s -> %s: %v", p, l.Target, err)
			} else if !info.IsDir() {
				t.Errorf("soft link %s -> %s: mode %v, want a directory", p, l.Target, info.Mode())
			}
		case l.Kind == "external":
			// Listed, not followed.
			var ents []fs.DirEntry
			err := within(func(ctx context.Context) error {
				var err error
				ents, err = fsys.WithContext(ctx).ReadDir(name(path.Dir(p)))
				return err
			})
			if err != nil {
				t.Errorf("external link %s: ReadDir of its group: %v", p, err)
			} else if !slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return e.Name() == path.Base(p) }) {
				t.Errorf("external link %s (%s:%s) is not listed", p, l.File, l.Path)
			}
		}
	}

	// The whole tree walks without looping, hanging or panicking.
	err = within(func(ctx context.Context) error {
		n := 0
		return fs.WalkDir(fsys.WithContext(ctx), ".", func(_ string, _ fs.DirEntry, err error) error {
			if n++; n > 1_000_000 {
				return errors.New("more than a million entries: a loop")
			}
			if err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
				return err
			}
			return nil
		})
	})
	if err != nil {
		t.Errorf("WalkDir(%s): %v", pipeline, err)
	}
}

// checkH5Dataset checks one dataset p: listed with h5py's shape, dtype,
// layout, chunks and filters, and read to h5py's bytes (or refused as
// this package allows). It reports whether the dataset is listed with
// the right shape and dtype.
func checkH5Dataset(t *testing.T, p string, d *h5Dataset, file *h5File,
	stat func(string) (fs.FileInfo, error), read func(string) ([]byte, error), st *h5Stats) bool {
	info, err := stat(p)
	if err != nil {
		t.Errorf("dataset %s: %v", p, err)
		return false
	}
	if !info.Mode().IsRegular() {
		t.Errorf("dataset %s: mode %v, want a regular file", p, info.Mode())
		return false
	}
	listed := true
	m, err := h5MetaOf(info)
	if err != nil {
		t.Errorf("dataset %s: %v", p, err)
		listed = m != nil
	}
	if m != nil {
		switch {
		case d.Shape == nil && len(m.Shape) != 0:
			t.Errorf("dataset %s: shape %v, h5py a null dataspace (want [])", p, m.Shape)
			listed = false
		case d.Shape != nil && !slices.Equal(m.Shape, d.Shape):
			t.Errorf("dataset %s: shape %v, h5py %v", p, m.Shape, d.Shape)
			listed = false
		}
		// A compound with variable-length members has numpy's in-memory
		// size in h5py (8-byte object pointers), and its size in the file
		// in pipefs: only the kind is compared.
		varCompound := !d.Fixed && d.Class == "compound" && strings.HasPrefix(m.NumPy, "|V") && d.DType != nil && strings.HasPrefix(*d.DType, "|V")
		if d.DType != nil && m.NumPy != *d.DType && !varCompound {
			t.Errorf("dataset %s: dtype %q, h5py %q (HDF5 class %s)", p, m.NumPy, *d.DType, d.Class)
			listed = false
		}
		if d.Layout != "" && m.Layout != d.Layout {
			t.Errorf("dataset %s: layout %q, h5py %q", p, m.Layout, d.Layout)
		}
		if d.Chunks != nil && !slices.Equal(m.ChunkShape, d.Chunks) {
			t.Errorf("dataset %s: chunks %v, h5py %v", p, m.ChunkShape, d.Chunks)
		}
		if d.ChunkIndex != "" && m.ChunkIndex != d.ChunkIndex {
			t.Errorf("dataset %s: chunk index %q, libhdf5 %q", p, m.ChunkIndex, d.ChunkIndex)
		}
		var ids []uint16
		for _, f := range d.Filters {
			ids = append(ids, f.ID)
		}
		if !slices.Equal(m.Filters, ids) {
			t.Errorf("dataset %s: filters %v, h5py %v", p, m.Filters, ids)
		}
	}

	if d.Skipped != "" {
		return listed
	}
	if d.Layout == "virtual" && d.SHA256 != "" {
		// Read from its sources; a source pipefs does not open (an
		// absolute file name) is refused, naming its file.
		b, err := read(p)
		switch {
		case err == nil:
			st.read++
			if got := sha256Hex(b); got != d.SHA256 {
				t.Errorf("dataset %s (virtual, %d bytes): sha256 %s, h5py %s", p, len(b), got, d.SHA256)
			} else {
				st.agree++
			}
		case !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "source file"):
			t.Errorf("dataset %s (virtual): %v; h5py reads it", p, err)
		}
		return listed
	}
	undecoded := ""
	for _, f := range d.Filters {
		if !h5Decoded[f.ID] {
			undecoded = fmt.Sprintf("%d (%s)", f.ID, f.Name)
			break
		}
	}
	b, err := read(p)
	switch {
	case err != nil && (strings.HasPrefix(err.Error(), "panic") || strings.HasPrefix(err.Error(), "hang")):
		t.Errorf("dataset %s: %v", p, err)
	case !d.Fixed:
		// Variable-length data and references are listed, not read
		// (when there is no element, an empty read is right too).
		if !errors.Is(err, errors.ErrUnsupported) && !(err == nil && len(b) == 0 && elements(d.Shape) == 0) {
			t.Errorf("dataset %s (%s, variable-length or references): read gives %d bytes, error %v; want errors.ErrUnsupported", p, deref(d.DType), len(b), err)
		}
	case d.Error != "":
		// h5py cannot read it (a filter it lacks): pipefs must fail
		// cleanly, or read it; then it must agree with the dataset it is
		// declared the same as.
		if err != nil {
			break
		}
		if same := file.Datasets[d.SameAs]; same != nil && same.SHA256 != "" {
			if got := sha256Hex(b); got != same.SHA256 {
				t.Errorf("dataset %s: sha256 %s, want that of %s (%s) as h5py reads it", p, got, d.SameAs, same.SHA256)
			}
		}
	case d.SHA256 == "":
	case err != nil:
		st.read++
		if undecoded != "" && errors.Is(err, errors.ErrUnsupported) {
			st.unsupported++
			if !regexp.MustCompile(`(^|[^0-9])` + strings.Fields(undecoded)[0] + `([^0-9]|$)`).MatchString(err.Error()) {
				t.Errorf("dataset %s: error %q does not name filter %s", p, err, undecoded)
			}
			break
		}
		t.Errorf("dataset %s (%s): %v; h5py reads it", p, deref(d.DType), err)
	default:
		st.read++
		if got := sha256Hex(b); got != d.SHA256 {
			t.Errorf("dataset %s (%s, %d bytes): sha256 %s, h5py %s", p, deref(d.DType), len(b), got, d.SHA256)
		} else {
			st.agree++
		}
	}
	return listed
}

// elements returns the number of elements of shape (0 for a null
// dataspace, nil; 1 for a scalar, []).
func elements(shape []int64) int64 {
	if shape == nil {
		return 0
	}
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

func deref(s *string) string {
	if s == nil {
		return "no numpy dtype"
	}
	return *s
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestHDF5SharedFixtures compares pipefs with h5py on the shared HDF5
// fixtures (../shared/fixtures/hdf5, described in its PROVENANCE.md).
func TestHDF5SharedFixtures(t *testing.T) {
	dir := fstest.Fixture(t, "hdf5")
	files := h5Files(t, dir, "*.hdf5")
	compareH5(t, files, loadDumps(t, files, h5pyDumps+"/shared"), dir)
}

// TestHDF5H5pyFixtures compares pipefs with h5py on the fixtures that
// scripts/hdf5fixtures.py writes: every layout, chunk index, type, filter,
// link kind and user block, under several libver settings.
func TestHDF5H5pyFixtures(t *testing.T) {
	files := h5Files(t, h5pyFixtures, "*.h5")
	compareH5(t, files, loadDumps(t, files, h5pyDumps), h5pyFixtures)
}

// loadDumps returns h5py's dumps of files: live when h5py is installed,
// else the committed ones in dir.
func loadDumps(t *testing.T, files []string, dir string) map[string]*h5File {
	t.Helper()
	if py := needH5py(t); py != "" {
		return h5pyDump(t, py, files)
	}
	t.Logf("h5py is not installed: comparing with the committed dumps in %s", dir)
	dumps := map[string]*h5File{}
	for _, f := range files {
		dumps[f] = committedDump(t, dir, f)
	}
	return dumps
}

// TestHDF5RealWorld compares pipefs with h5py on the HDF5 files that
// other projects wrote (PyTables, h5py, HyperSpy, Scilab, R, netCDF-4,
// HDF-EOS5, MINC, NeXus, ...), gathered by scripts/corpus.sh into
// $PIPEFS_CORPUS/hdf5. Every dataset h5py lists must be listed, every
// fixed-size dataset h5py reads must read identically, and files or
// datasets h5py cannot read must give clean errors.
func TestHDF5RealWorld(t *testing.T) {
	dir := os.Getenv("PIPEFS_CORPUS")
	if dir == "" {
		fstest.Unavailable(t, "PIPEFS_CORPUS is not set: run scripts/corpus.sh DIR and set PIPEFS_CORPUS=DIR")
	}
	py := needH5py(t)
	if py == "" {
		t.Skip("h5py is not installed (Debian: python3-h5py); the corpus has no committed dumps")
	}
	dir = filepath.Join(dir, "hdf5")
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 100 {
		t.Fatalf("corpus %s: %d HDF5 files, %v; want at least 100 (run scripts/corpus.sh)", dir, len(files), err)
	}
	compareH5(t, files, h5pyDump(t, py, files), dir)
}

// TestHDF5Composition reads HDF5 files inside a zip (stored and
// deflated), inside a tar.gz and on an HTTP server: every dataset must
// read as from the plain file.
func TestHDF5Composition(t *testing.T) {
	names := []string{"layouts_latest.h5", "userblock1024.h5"}
	files := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(h5pyFixtures, n))
		if err != nil {
			t.Fatal(err)
		}
		files["d/"+n] = b
	}
	tarred := tarBytes(t, files)
	pfx := "memory:/" + fstest.MapFiles(t, map[string][]byte{
		"stored.zip":   fstest.ZipBytes(files, zip.Store),
		"deflated.zip": fstest.ZipBytes(files, zip.Deflate),
		"x.tar.gz":     gzipBytes(t, tarred),
	})
	srv := fstest.NewHTTPServer(t, files)
	for _, n := range names {
		abs, err := filepath.Abs(filepath.Join(h5pyFixtures, n))
		if err != nil {
			t.Fatal(err)
		}
		want := treeFiles(t, openFS(t, "file:"+filepath.ToSlash(abs)+"|hdf5:", nil), ".", "")
		if len(want) < 2 {
			t.Fatalf("%s: %d datasets, want at least 2", n, len(want))
		}
		for _, pipeline := range []string{
			pfx + "/stored.zip|zip:d/" + n + "|hdf5:",
			pfx + "/deflated.zip|zip:d/" + n + "|hdf5:",
			pfx + "/x.tar.gz|gzip:|pipefs.tar:d/" + n + "|hdf5:",
			srv.URL() + "/d/" + n + "|hdf5:",
		} {
			got := treeFiles(t, openFS(t, pipeline, opts()), ".", "")
			for name, w := range want {
				if g, ok := got[name]; !ok {
					t.Errorf("%s: %s is missing", pipeline, name)
				} else if !bytes.Equal(g, w) {
					t.Errorf("%s: %s differs from the plain file's (%d bytes, want %d)", pipeline, name, len(g), len(w))
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s: %d datasets, the plain file %d", pipeline, len(got), len(want))
			}
		}
	}
}

// TestHDF5Damaged opens damaged copies of the h5py fixtures (truncated,
// with a run of bytes zeroed or inverted at several places, which breaks
// headers, B-trees, heaps, checksums and compressed chunks) and walks and
// reads each whole: every error must be an error, never a panic or a
// hang, and no read may return more bytes than a dataset can hold.
func TestHDF5Damaged(t *testing.T) {
	files := h5Files(t, h5pyFixtures, "*.h5")
	damaged := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(f)
		for _, frac := range []int{1, 3, 5, 7, 9} {
			n := len(b) * frac / 10
			damaged[fmt.Sprintf("%s.trunc%d", base, frac)] = b[:n]
			for _, how := range []string{"zero", "invert"} {
				c := bytes.Clone(b)
				for i := n; i < min(n+64, len(c)); i++ {
					if how == "zero" {
						c[i] = 0
					} else {
						c[i] ^= 0xff
					}
				}
				damaged[fmt.Sprintf("%s.%s%d", base, how, frac)] = c
			}
		}
	}
	pfx := "memory:/" + fstest.MapFiles(t, damaged)
	var opened, errs atomic.Int64 // a hung walk may still count
	for _, name := range slices.Sorted(maps.Keys(damaged)) {
		pipeline := pfx + "/" + name + "|hdf5:"
		err := within(func(ctx context.Context) error {
			fsys, err := vfs.OpenFS(ctx, pipeline, nil)
			if err != nil {
				return err
			}
			defer fsys.Close()
			opened.Add(1)
			var bad []string
			err = fs.WalkDir(fsys.WithContext(ctx), ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					if strings.HasPrefix(err.Error(), "panic") || errors.Is(err, context.DeadlineExceeded) {
						return err
					}
					errs.Add(1)
					return nil
				}
				if !d.Type().IsRegular() {
					return nil
				}
				info, err := d.Info()
				if err != nil {
					errs.Add(1)
					return nil
				}
				b, err := fsys.WithContext(ctx).ReadFile(p)
				if err != nil {
					errs.Add(1)
				} else if int64(len(b)) != info.Size() {
					bad = append(bad, fmt.Sprintf("%s: read %d bytes, Stat says %d", p, len(b), info.Size()))
				}
				return nil
			})
			if len(bad) > 0 {
				return errors.New(strings.Join(bad, "\n"))
			}
			return err
		})
		if err != nil && (strings.HasPrefix(err.Error(), "panic") || strings.HasPrefix(err.Error(), "hang") ||
			strings.Contains(err.Error(), "Stat says")) {
			t.Errorf("%s: %v", pipeline, err)
		}
	}
	t.Logf("%d damaged files: %d opened, %d errors while walking and reading them", len(damaged), opened.Load(), errs.Load())
}
