package arraycore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/arraycore"
	_ "github.com/pipefs/pipefs/adapters/n5adapter"
	_ "github.com/pipefs/pipefs/adapters/precomputedadapter"
	_ "github.com/pipefs/pipefs/adapters/zarradapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

func fixture(t testing.TB, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("../../../shared/fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(p)
}

func TestOpenNodeDetects(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ pipeline, format string }{
		{"file:" + fixture(t, "zarr3/data.zarr") + "/", "zarr3"},
		{"file:" + fixture(t, "zarr2/data.zarr") + "/", "zarr2"},
		{"file:" + fixture(t, "zarr3/tensorstore_single_res") + "/", "zarr3"},
		{"file:" + fixture(t, "n5/tensorstore_golden/xz") + "/", "n5"},
		{"file:" + fixture(t, "precomputed/two_channels") + "/", "neuroglancer-precomputed"},
	} {
		n, fsys, err := arraycore.OpenNode(ctx, c.pipeline, nil)
		if err != nil {
			t.Errorf("OpenNode(%s): %v", c.pipeline, err)
			continue
		}
		if n.Format != c.format {
			t.Errorf("OpenNode(%s).Format = %s, want %s", c.pipeline, n.Format, c.format)
		}
		var text, js bytes.Buffer
		if err := arraycore.WriteDescription(&text, n, false); err != nil {
			t.Error(err)
		}
		if err := arraycore.WriteDescription(&js, n, true); err != nil || !json.Valid(js.Bytes()) {
			t.Errorf("WriteDescription(json) = %s, %v", js.Bytes(), err)
		}
		fsys.Close()
	}
}

func TestBoxAndChunk(t *testing.T) {
	ctx := context.Background()
	n, fsys, err := arraycore.OpenNode(ctx, "file:"+fixture(t, "zarr3/data.zarr")+"/|zarr3:3d.chunked.compressed.sharded.i2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	a := n.Array
	start, stop, err := arraycore.ParseBox("1:3,2,:", a.Shape)
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
	coord, _ := arraycore.ParseChunk("3,3,3")
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
	fsys := os.DirFS(fixture(t, "zarr3/data.zarr"))
	for name, want := range map[string]string{
		".":                                "zarr3 group",
		"1d.contiguous.raw.i2":             "zarr3 array int16 [4]",
		"2d.chunked.compressed.sharded.i2": "zarr3 array int16 [4 4]",
	} {
		if got, ok := arraycore.Label(ctx, fsys, name); !ok || got != want {
			t.Errorf("Label(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := arraycore.Label(ctx, fsys, "1d.contiguous.raw.i2/c"); ok {
		t.Error("Label(chunk dir) = ok")
	}
	vf, err := vfs.OpenFS(ctx, "file:"+fixture(t, "n5/tensorstore_golden")+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer vf.Close()
	if got, _ := arraycore.Label(ctx, vf, "raw"); got != "n5 array uint16 [4 5]" {
		t.Errorf("Label(n5 raw) = %q", got)
	}
}

// TestPrecomputed checks the info-only fixtures and reads a chunk written
// here (no fixture has chunks): a 2-channel raw volume, x fastest.
func TestPrecomputed(t *testing.T) {
	ctx := context.Background()
	n, fsys, err := arraycore.OpenNode(ctx, "file:"+fixture(t, "precomputed/two_channels")+"/|neuroglancer-precomputed:", nil)
	if err != nil {
		t.Fatal(err)
	}
	fsys.Close()
	if strings.Join(n.Children, ",") != "3_4_5,6_8_10,12_16_20" {
		t.Errorf("Children = %v", n.Children)
	}
	dir := t.TempDir()
	info := `{"@type":"neuroglancer_multiscale_volume","type":"image","data_type":"uint8","num_channels":2,
	  "scales":[{"key":"s0","size":[3,2,1],"voxel_offset":[10,0,0],"chunk_sizes":[[2,2,1]],"resolution":[1,1,1],"encoding":"raw"}]}`
	os.WriteFile(filepath.Join(dir, "info"), []byte(info), 0o644)
	os.Mkdir(filepath.Join(dir, "s0"), 0o755)
	// Chunk x 10-12: [x, y, z, c] Fortran order: x fastest, then y, then c.
	os.WriteFile(filepath.Join(dir, "s0", "10-12_0-2_0-1"), []byte{1, 2, 3, 4, 101, 102, 103, 104}, 0o644)
	// The edge chunk x 12-13 is truncated to one column.
	os.WriteFile(filepath.Join(dir, "s0", "12-13_0-2_0-1"), []byte{5, 6, 105, 106}, 0o644)
	a, fsys, err := arraycore.OpenArray(ctx, "file:"+filepath.ToSlash(dir)+"/|neuroglancer-precomputed:", "s0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	b, err := a.ReadAll(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	// [c, z, y, x]
	want := []byte{1, 2, 5, 3, 4, 6, 101, 102, 105, 103, 104, 106}
	if !bytes.Equal(b, want) {
		t.Errorf("ReadAll = %v, want %v", b, want)
	}
}
