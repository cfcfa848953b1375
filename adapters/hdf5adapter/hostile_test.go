package hdf5adapter_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// fixtureBytes reads a shared HDF5 fixture.
func fixtureBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := readFixture(t, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readFixture reads a shared HDF5 fixture.
func readFixture(t testing.TB, name string) ([]byte, error) {
	t.Helper()
	return os.ReadFile(fstest.Fixture(t, "hdf5/"+name))
}

// openBytes opens b as an HDF5 tree with the limits of env.
func openBytes(t *testing.T, b []byte, env *vfs.Env) (driver.Tree, error) {
	t.Helper()
	return hdf5adapter.Open(context.Background(), driver.BytesBlob(b, nil), env)
}

func TestBadChecksums(t *testing.T) {
	ctx := context.Background()
	// The v2 superblock.
	b := fixtureBytes(t, "latest.hdf5")
	b[20] ^= 1
	if _, err := openBytes(t, b, nil); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("bad superblock checksum: %v", err)
	}
	// An object header.
	b = fixtureBytes(t, "latest.hdf5")
	i := bytes.Index(b[100:], []byte("OHDR")) + 100
	b[i+8] ^= 1
	tr, err := openBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := tr.ReadDir(ctx, ".")
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, e := range ents {
		if e.Type() == fs.ModeIrregular {
			bad++
			if _, err := tr.Stat(ctx, e.Name()); !errors.Is(err, driver.ErrCorrupt) {
				t.Errorf("Stat(%s) with a bad object header checksum: %v", e.Name(), err)
			}
		}
	}
	if bad != 1 || len(ents) != 2 {
		t.Errorf("bad object header checksum: %d entries, %d unreadable", len(ents), bad)
	}
	// A fixed array header: listing works, reading fails.
	b = fixtureBytes(t, "chunk_index_v4.hdf5")
	i = bytes.Index(b, []byte("FAHD"))
	b[i+8] ^= 1
	if tr, err = openBytes(t, b, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.ReadDir(ctx, "."); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, name := range []string{"farray", "farray_filt", "farray_paged", "farray_max", "fill_partial", "never_written"} {
		blob, err := tr.OpenBlob(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := blob.ReadAt(ctx, make([]byte, 8), 0); errors.Is(err, driver.ErrCorrupt) {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("%d datasets fail with a bad fixed array checksum, want 1", failed)
	}
}

func TestSelfReferencingBTree(t *testing.T) {
	b := fixtureBytes(t, "earliest.hdf5")
	i := bytes.Index(b, []byte("TREE"))
	// A group node of level 1 whose first child is itself.
	b[i+5] = 1
	binary.LittleEndian.PutUint64(b[i+8+2*8+8:], uint64(i))
	tr, err := openBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.ReadDir(context.Background(), "."); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("self-referencing B-tree: %v", err)
	}
}

func TestTruncated(t *testing.T) {
	for _, name := range []string{"earliest.hdf5", "latest.hdf5", "chunk_index_v4.hdf5", "latest_dense.hdf5"} {
		b := fixtureBytes(t, name)
		for _, n := range []int{7, 100, len(b) / 2, len(b) - 1} {
			_, err := openBytes(t, b[:n], nil)
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Errorf("%s cut at %d: %v", name, n, err)
			}
		}
	}
}

func TestHugeDimensions(t *testing.T) {
	b := fixtureBytes(t, "earliest.hdf5")
	// dataset1's dataspace: version 1, rank 1, max dims present, dims 4.
	pat := []byte{1, 1, 1, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 4}
	i := bytes.Index(b, pat)
	if i < 0 {
		t.Fatal("no dataspace found")
	}
	binary.LittleEndian.PutUint64(b[i+8:], 1<<60)
	tr, err := openBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Stat(context.Background(), "dataset1"); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("2^60 elements in 16 bytes: %v", err)
	}
}

func TestEntryLimit(t *testing.T) {
	env := smallEnv()
	env.Limits.MaxEntries = 10
	tr, err := openBytes(t, fixtureBytes(t, "earliest_extra.hdf5"), env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.ReadDir(context.Background(), "many"); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("21 links with MaxEntries 10: %v", err)
	}
}

// linksScript writes soft links in cycles, a soft link to an ancestor and
// a dangling one, with h5py.
const linksScript = `
import sys, h5py
with h5py.File(sys.argv[1], 'w') as f:
    f['a'] = h5py.SoftLink('/b')
    f['b'] = h5py.SoftLink('/a')
    g = f.create_group('g')
    g['up'] = h5py.SoftLink('/g')
    g['rel'] = h5py.SoftLink('../g')
    g['dangling'] = h5py.SoftLink('/nowhere')
    g['self'] = h5py.SoftLink('/g/self')
    g['x'] = [1, 2, 3]
    g['to_x'] = h5py.SoftLink('x')
    g['hard_up'] = f
`

func TestSoftLinkCycles(t *testing.T) {
	py := h5py(t)
	p := filepath.Join(t.TempDir(), "links.h5")
	if out, err := exec.Command(py, "-c", linksScript, p).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(p), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	got := walk(t, fsys)
	// HDF5 paths have no "..": rel is dangling, as in libhdf5.
	want := map[string]string{".": "d", "a": "l", "b": "l", "g": "d", "g/up": "l", "g/rel": "l",
		"g/dangling": "l", "g/self": "l", "g/x": "f", "g/to_x": "f", "g/hard_up": "l"}
	if len(got) != len(want) {
		t.Errorf("walked %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if _, err := fs.Stat(fsys, "a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of a soft link cycle: %v", err)
	}
	ents, err := fs.ReadDir(fsys, "g")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		info, _ := e.Info()
		switch s := unwrap(info.Sys()).(type) {
		case *hdf5adapter.CycleLink:
			if s.Path != "/g" && s.Path != "/" {
				t.Errorf("%s: cycle to %s", e.Name(), s.Path)
			}
		case *hdf5adapter.SoftLink:
			if e.Name() != "dangling" && e.Name() != "self" && e.Name() != "rel" {
				t.Errorf("%s: dangling %s", e.Name(), s.Path)
			}
		}
	}
	// Names follow cycle links.
	b, err := fs.ReadFile(fsys, "g/up/hard_up/g/to_x")
	if err != nil || len(b) != 24 {
		t.Errorf("g/up/hard_up/g/to_x: %d bytes, %v", len(b), err)
	}
}

func TestUnsupportedDatatypeListed(t *testing.T) {
	b := fixtureBytes(t, "earliest.hdf5")
	// dataset1's datatype message: class 0 version 1, little-endian signed
	// 32-bit; make it class 15.
	const header = 912 // dataset1's object header
	i := header + bytes.Index(b[header:], []byte{0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0})
	if i < header {
		t.Fatal("no datatype message found")
	}
	b[i] = 0x1f
	tr, err := openBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ents, err := tr.ReadDir(ctx, ".")
	if err != nil || len(ents) != 2 {
		t.Fatalf("ReadDir: %v, %v", ents, err)
	}
	info, err := tr.Stat(ctx, "dataset1")
	if err != nil {
		t.Fatal(err)
	}
	if d := info.Sys().(*hdf5adapter.Dataset); d.DType.Class != "unsupported" || info.Size() != 16 {
		t.Errorf("dataset1: %+v, %d bytes", d.DType, info.Size())
	}
	blob, err := tr.OpenBlob(ctx, "dataset1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blob.ReadAt(ctx, make([]byte, 4), 0); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("reading it: %v", err)
	}
}

// A shared message table that is damaged (signature, checksum) makes the
// objects whose messages are in the shared-message heap fail with
// driver.ErrCorrupt; the file still opens and lists.
func TestBadSharedMessageTable(t *testing.T) {
	ctx := context.Background()
	orig, err := os.ReadFile(filepath.Join("testdata", "h5py", "sohm_list.h5"))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(orig, []byte("SMTB"))
	if at < 0 {
		t.Fatal("no SMTB in sohm_list.h5")
	}
	for _, tc := range []struct {
		name string
		off  int
	}{{"signature", 0}, {"checksum", 6}} {
		b := slices.Clone(orig)
		b[at+tc.off] ^= 0x40
		tr, err := openBytes(t, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.ReadDir(ctx, "same"); err != nil {
			t.Fatalf("%s: list: %v", tc.name, err)
		}
		_, err = tr.Stat(ctx, "same/d00")
		if !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: Stat(same/d00) with a damaged SMTB: %v, want driver.ErrCorrupt", tc.name, err)
		}
	}
}
