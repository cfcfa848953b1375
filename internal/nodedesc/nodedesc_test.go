package nodedesc_test

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pipefs/pipefs/adapters/array"
	_ "github.com/pipefs/pipefs/all"
	pfstest "github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/nodedesc"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func TestLabel(t *testing.T) {
	ctx := context.Background()
	fsys := os.DirFS(pfstest.Fixture(t, "zarr3/data.zarr"))
	for name, want := range map[string]string{
		".":                                "zarr3 group",
		"1d.contiguous.raw.i2":             "zarr3 array int16 [4]",
		"2d.chunked.compressed.sharded.i2": "zarr3 array int16 [4 4]",
	} {
		if got, ok := nodedesc.Label(ctx, vfs.DefaultRegistry, fsys, name, nil); !ok || got != want {
			t.Errorf("Label(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := nodedesc.Label(ctx, vfs.DefaultRegistry, fsys, "1d.contiguous.raw.i2/c", nil); ok {
		t.Error("Label(chunk dir) = ok")
	}
	vf, err := vfs.OpenFS(ctx, "file:"+pfstest.Fixture(t, "n5/tensorstore_golden")+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer vf.Close()
	if got, _ := nodedesc.Label(ctx, vfs.DefaultRegistry, vf, "raw", nil); got != "n5 array uint16 [4 5]" {
		t.Errorf("Label(n5 raw) = %q", got)
	}
}

// TestLabelDetects checks that a label comes from the registry's
// detection: a directory that holds only .zattrs is a Zarr v2 group, as
// opening it detects it, and labels answered from a listing agree with
// those read from the tree.
func TestLabelDetects(t *testing.T) {
	ctx := context.Background()
	fsys := fstest.MapFS{
		"attrs/.zattrs":       {Data: []byte(`{"a":1}`)},
		"plain/readme.txt":    {Data: []byte("hi")},
		"bad/.zarray":         {Data: []byte(`{"zarr_format":2}`)},
		"vol/info":            {Data: []byte(`{"@type":"neuroglancer_multiscale_volume","type":"image","data_type":"uint8","num_channels":1,"scales":[{"key":"s0"},{"key":"s1"}]}`)},
		"notvol/info":         {Data: []byte(`not json`)},
		"attrs/sub/zarr.json": {Data: []byte(`{"zarr_format":3,"node_type":"group"}`)},
	}
	u, ok, err := vfs.DefaultRegistry.DetectDir(ctx, driver.SubTree(array.FSTree(fsys), "attrs"), true)
	if err != nil || !ok || u.Scheme != "zarr2" {
		t.Fatalf("DetectDir(attrs) = %v, %v, %v; want zarr2:", u, ok, err)
	}
	for name, want := range map[string]string{
		"attrs":     "zarr2 group",
		"attrs/sub": "zarr3 group",
		"plain":     "",
		"bad":       "zarr2 (invalid: ",
		"vol":       "neuroglancer-precomputed volume (2 scales)",
		"notvol":    "",
	} {
		ents, err := fs.ReadDir(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, listed := range [][]fs.DirEntry{nil, ents} {
			got, ok := nodedesc.Label(ctx, vfs.DefaultRegistry, fsys, name, listed)
			if ok != (want != "") || !strings.HasPrefix(got, want) || want == "" && got != "" {
				t.Errorf("Label(%q, listed %v) = %q, %v; want %q", name, listed != nil, got, ok, want)
			}
		}
	}
}
