package hdf5adapter_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// h5pyDump is what scripts/h5pydump.py recorded of a file of
// testdata/h5py (dumps/NAME.json).
type h5pyDump struct {
	Datasets map[string]struct {
		DType  string  `json:"dtype"`
		Shape  []int64 `json:"shape"`
		Layout string  `json:"layout"`
		SHA256 string  `json:"sha256"`
	} `json:"datasets"`
}

// openH5py opens testdata/h5py/name with hdf5: and reads its dump.
func openH5py(t *testing.T, name string) (*vfs.FS, *h5pyDump) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "h5py", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "h5py", "dumps", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var dump h5pyDump
	if err := json.Unmarshal(b, &dump); err != nil {
		t.Fatal(err)
	}
	fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(path)+"|hdf5:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys, &dump
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// A virtual dataset is listed and described with h5py's shape, dtype
// and layout, and reads as h5py reads it: from sources in the same file
// (scripts/hdf5fixtures.py, scripts/hdf5vds.py) and in files beside it.
func TestVirtualDataset(t *testing.T) {
	fsys, dump := openH5py(t, "virtual_latest.h5")
	want := dump.Datasets["/vds"]
	d := dataset(t, fsys, "vds")
	if d.Layout != "virtual" || want.Layout != "virtual" || !slices.Equal(d.Shape, want.Shape) || d.DType.NumPy != want.DType {
		t.Errorf("vds: layout %q, shape %v, dtype %q; h5py %q, %v, %q", d.Layout, d.Shape, d.DType.NumPy, want.Layout, want.Shape, want.DType)
	}
	if b, err := fs.ReadFile(fsys, "vds"); err != nil || sha256Hex(b) != want.SHA256 {
		t.Errorf("read vds: %d bytes, %v; want h5py's", len(b), err)
	}
	if an := d.ArrayNode(); an.Array == nil || !slices.Equal(an.Array.Shape, want.Shape) {
		t.Errorf("ArrayNode of vds: %+v", an.Array)
	}
	for file, names := range map[string][]string{
		"vds_same.h5":   {"rows", "strided", "block", "nested"},
		"vds_beside.h5": {"stack"},
	} {
		fsys, dump := openH5py(t, file)
		for _, name := range names {
			b, err := fs.ReadFile(fsys, name)
			if want := dump.Datasets["/"+name].SHA256; err != nil || want == "" || sha256Hex(b) != want {
				t.Errorf("%s %s: %d bytes, %v; want h5py's (sha256 %s)", file, name, len(b), err, want)
			}
			// a read in the middle, across mappings
			f, err := fsys.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			all, _ := fs.ReadFile(fsys, name)
			part := make([]byte, len(all)/2)
			if n, err := f.(io.ReaderAt).ReadAt(part, int64(len(all)/4)); n != len(part) || err != nil || !bytes.Equal(part, all[len(all)/4:][:len(part)]) {
				t.Errorf("%s %s: ReadAt in the middle: %d, %v", file, name, n, err)
			}
			f.Close()
		}
	}
	fsys, _ = openH5py(t, "vds_elsewhere.h5")
	if b, err := fs.ReadFile(fsys, "abs"); !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "/nonexistent/pipefs/abs.h5") {
		t.Errorf("read abs: %d bytes, %v; want errors.ErrUnsupported naming the source file", len(b), err)
	}
}
