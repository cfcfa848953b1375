package hdf5adapter_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
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
// and layout; reading it fails with errors.ErrUnsupported naming it.
func TestVirtualDataset(t *testing.T) {
	fsys, dump := openH5py(t, "virtual_latest.h5")
	want := dump.Datasets["/vds"]
	d := dataset(t, fsys, "vds")
	if d.Layout != "virtual" || want.Layout != "virtual" || !slices.Equal(d.Shape, want.Shape) || d.DType.NumPy != want.DType {
		t.Errorf("vds: layout %q, shape %v, dtype %q; h5py %q, %v, %q", d.Layout, d.Shape, d.DType.NumPy, want.Layout, want.Shape, want.DType)
	}
	b, err := fs.ReadFile(fsys, "vds")
	if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "virtual") {
		t.Errorf("read vds: %d bytes, %v; want errors.ErrUnsupported naming the virtual dataset", len(b), err)
	}
	if an := d.ArrayNode(); an.Array == nil || !slices.Equal(an.Array.Shape, want.Shape) {
		t.Errorf("ArrayNode of vds: %+v", an.Array)
	}
}

// Datatypes, dataspaces, fill values, filter pipelines and attributes
// stored once in the shared-message heap, indexed by a list or by a v2
// B-tree, read as h5py reads them.
func TestSharedMessageHeap(t *testing.T) {
	for _, name := range []string{"sohm_list.h5", "sohm_btree.h5"} {
		t.Run(name, func(t *testing.T) {
			fsys, dump := openH5py(t, name)
			if len(dump.Datasets) != 16 {
				t.Fatalf("dump of %d datasets", len(dump.Datasets))
			}
			for p, want := range dump.Datasets {
				d := dataset(t, fsys, p[1:])
				if d.DType.NumPy != want.DType || !slices.Equal(d.Shape, want.Shape) {
					t.Errorf("%s: dtype %q, shape %v; h5py %q, %v", p, d.DType.NumPy, d.Shape, want.DType, want.Shape)
				}
				b, err := fs.ReadFile(fsys, p[1:])
				if err != nil {
					t.Errorf("%s: %v", p, err)
				} else if got := sha256Hex(b); got != want.SHA256 {
					t.Errorf("%s: sha256 %s, h5py %s", p, got, want.SHA256)
				}
				if strings.HasPrefix(p, "/same/") {
					if u := d.Attributes["units"]; u != "metres per second, shared" {
						t.Errorf("%s: attribute units %#v", p, u)
					}
					if len(d.Filters) != 2 || d.Filters[0].ID != 2 || d.Filters[1].ID != 1 {
						t.Errorf("%s: filters %+v, want shuffle, deflate", p, d.Filters)
					}
				}
			}
		})
	}
}

// h5py reads a compound of two floats named "r" and "i" as a complex
// number; it stays a compound with its fields, and reads through package
// array as complex numbers in little-endian order.
func TestComplexDType(t *testing.T) {
	fsys, dump := openH5py(t, "types_latest.h5")
	for _, tc := range []struct {
		path, numpy, array string
	}{{"complex/c8", "<c8", "complex64"}, {"complex/c16_be", ">c16", "complex128"}} {
		d := dataset(t, fsys, tc.path)
		if d.DType.NumPy != tc.numpy || dump.Datasets["/"+tc.path].DType != tc.numpy {
			t.Errorf("%s: dtype %q, want %q", tc.path, d.DType.NumPy, tc.numpy)
		}
		if d.DType.Class != "compound" || len(d.DType.Fields) != 2 || d.DType.Fields[0].Name != "r" || d.DType.Fields[1].Name != "i" {
			t.Errorf("%s: %+v, want a compound of r and i", tc.path, d.DType)
		}
		an := d.ArrayNode()
		if an.Array.DType.Name != tc.array {
			t.Fatalf("%s: array dtype %q, want %q", tc.path, an.Array.DType.Name, tc.array)
		}
		stored, err := fs.ReadFile(fsys, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		le, _, err := an.Array.Reader.ReadChunk(context.Background(), make([]int64, len(d.Shape)))
		if err != nil {
			t.Fatal(err)
		}
		// Each part of each number swaps on its own.
		unit := d.DType.Size / 2
		want := slices.Clone(stored)
		if tc.numpy[0] == '>' {
			for i := 0; i+unit <= len(want); i += unit {
				slices.Reverse(want[i : i+unit])
			}
		}
		if !bytes.Equal(le[:len(want)], want) {
			t.Errorf("%s: array chunk % x, want % x", tc.path, le[:min(len(le), 32)], want[:min(len(want), 32)])
		}
	}
}

// Fixed-length strings read as stored: the bytes h5py reads with the
// file's own datatype, a space-padded string keeping its spaces.
func TestFixedStringsStored(t *testing.T) {
	fsys, dump := openH5py(t, "types_latest.h5")
	for _, p := range []string{"string/fixed_nullpad", "string/fixed_nullterm", "string/fixed_spacepad", "string/fixed_utf8"} {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sha256Hex(b), dump.Datasets["/"+p].SHA256; got != want {
			t.Errorf("%s: %q: sha256 %s, h5py %s", p, b, got, want)
		}
		d := dataset(t, fsys, p)
		if p == "string/fixed_spacepad" && (d.DType.Padding != "spacepad" || !bytes.Contains(b, []byte(" "))) {
			t.Errorf("%s: padding %q, bytes %q: want the stored spaces", p, d.DType.Padding, b)
		}
	}
}

// TestReferences checks that reference datasets are described, that
// reading their bytes fails with errors.ErrUnsupported without pointing at
// the string reader, which does not read them.
func TestReferences(t *testing.T) {
	fsys, _ := openH5py(t, "types_latest.h5")
	d := dataset(t, fsys, "ref/object")
	if d.DType.Class != "reference" || d.DType.RefType != "object" {
		t.Fatalf("ref/object: type %+v, want an object reference", d.DType)
	}
	_, err := fs.ReadFile(fsys, "ref/object")
	if !errors.Is(err, errors.ErrUnsupported) || strings.Contains(err.Error(), "--strings") {
		t.Errorf("read ref/object: %v; want errors.ErrUnsupported, not the --strings hint", err)
	}
}
