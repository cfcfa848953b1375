package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/describe"
)

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
		if err := describe.WriteNode(&text, n, false); err != nil {
			t.Error(err)
		}
		if err := describe.WriteNode(&js, n, true); err != nil || !json.Valid(js.Bytes()) {
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

// TestTreeEmptyLabel: tree of an empty directory labels nothing.
func TestTreeEmptyLabel(t *testing.T) {
	out := mustRun(t, "tree", "file:"+t.TempDir()+"/")
	if strings.Contains(out, "[") {
		t.Errorf("tree of an empty directory has a label:\n%s", out)
	}
}
