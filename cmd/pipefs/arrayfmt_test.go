package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// fixtureDir is the directory of fixture rel.
func fixtureDir(t *testing.T, rel string) string {
	t.Helper()
	return strings.TrimPrefix(fixture(t, rel), "file:")
}

func TestOpenNodeDetects(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ pipeline, format string }{
		{fixture(t, "zarr3/data.zarr") + "/", "zarr3"},
		{fixture(t, "zarr2/data.zarr") + "/", "zarr2"},
		{fixture(t, "zarr3/tensorstore_single_res") + "/", "zarr3"},
		{fixture(t, "n5/tensorstore_golden/xz") + "/", "n5"},
		{fixture(t, "precomputed/two_channels") + "/", "neuroglancer-precomputed"},
	} {
		n, fsys, err := array.OpenNode(ctx, c.pipeline, nil)
		if err != nil {
			t.Errorf("OpenNode(%s): %v", c.pipeline, err)
			continue
		}
		if n.Format != c.format {
			t.Errorf("OpenNode(%s).Format = %s, want %s", c.pipeline, n.Format, c.format)
		}
		var text, js bytes.Buffer
		if err := writeDescription(&text, n, false); err != nil {
			t.Error(err)
		}
		if err := writeDescription(&js, n, true); err != nil || !json.Valid(js.Bytes()) {
			t.Errorf("WriteDescription(json) = %s, %v", js.Bytes(), err)
		}
		fsys.Close()
	}
}

func TestBoxAndChunk(t *testing.T) {
	ctx := context.Background()
	n, fsys, err := array.OpenNode(ctx, fixture(t, "zarr3/data.zarr")+"/|zarr3:3d.chunked.compressed.sharded.i2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	a := n.Array
	start, stop, err := parseBox("1:3,2,:", a.Shape)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := a.WriteBox(ctx, &buf, start, stop, 1<<10); err != nil {
		t.Fatal(err)
	}
	// np.arange(64).reshape(4,4,4)[1:3, 2, :]
	want := []int16{24, 25, 26, 27, 40, 41, 42, 43}
	got := buf.Bytes()
	for i, w := range want {
		if v := int16(got[2*i]) | int16(got[2*i+1])<<8; v != w {
			t.Errorf("box[%d] = %d, want %d", i, v, w)
		}
	}
	coord, _ := parseChunk("3,3,3")
	buf.Reset()
	if _, err := a.WriteChunk(ctx, &buf, coord, 0); err != nil || buf.Len() != 2 || buf.Bytes()[0] != 63 {
		t.Errorf("WriteChunk(3,3,3) = % x, %v; want 63", buf.Bytes(), err)
	}
	if _, err := a.WriteBox(ctx, &buf, []int64{0, 0, 0}, a.Shape, 10); err == nil {
		t.Error("WriteBox over the limit succeeded")
	}
}

func TestLabel(t *testing.T) {
	ctx := context.Background()
	fsys := os.DirFS(fixtureDir(t, "zarr3/data.zarr"))
	for name, want := range map[string]string{
		".":                                "zarr3 group",
		"1d.contiguous.raw.i2":             "zarr3 array int16 [4]",
		"2d.chunked.compressed.sharded.i2": "zarr3 array int16 [4 4]",
	} {
		if got, ok := arrayLabel(ctx, vfs.DefaultRegistry, fsys, name, nil); !ok || got != want {
			t.Errorf("Label(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := arrayLabel(ctx, vfs.DefaultRegistry, fsys, "1d.contiguous.raw.i2/c", nil); ok {
		t.Error("Label(chunk dir) = ok")
	}
	vf, err := vfs.OpenFS(ctx, fixture(t, "n5/tensorstore_golden")+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer vf.Close()
	if got, _ := arrayLabel(ctx, vfs.DefaultRegistry, vf, "raw", nil); got != "n5 array uint16 [4 5]" {
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
			got, ok := arrayLabel(ctx, vfs.DefaultRegistry, fsys, name, listed)
			if ok != (want != "") || !strings.HasPrefix(got, want) || want == "" && got != "" {
				t.Errorf("arrayLabel(%q, listed %v) = %q, %v; want %q", name, listed != nil, got, ok, want)
			}
		}
	}
	out := mustRun(t, "tree", "file:"+t.TempDir()+"/")
	if strings.Contains(out, "[") {
		t.Errorf("tree of an empty directory has a label:\n%s", out)
	}
}

// TestWriteDescription checks the text that "pipefs array URL" prints.
func TestWriteDescription(t *testing.T) {
	n, fsys, err := array.OpenNode(context.Background(), fixture(t, "zarr2/data.zarr")+"/|zarr2:1d.contiguous.zlib.i2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var b strings.Builder
	if err := writeDescription(&b, n, false); err != nil {
		t.Fatal(err)
	}
	want := `format:          zarr2
node:            array
path:            1d.contiguous.zlib.i2
shape:           [4]
chunk shape:     [4] (grid [1])
data type:       int16 (stored "<i2", 2 bytes)
fill value:      0
order:           C
chunk keys:      v2 .
codecs:          zlib {"id":"zlib","level":1}
attributes:      {}
`
	if b.String() != want {
		t.Errorf("writeDescription =\n%s\nwant\n%s", b.String(), want)
	}
}
