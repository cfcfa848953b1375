package precomputedadapter_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	_ "github.com/pipefs/pipefs/adapters/precomputedadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
)

func TestConformance(t *testing.T) {
	dir := fstest.Fixture(t, "precomputed/one_channel")
	fstest.Run(t, fstest.Case{Pipeline: "file:" + filepath.ToSlash(dir) + "/|neuroglancer-precomputed:",
		Files: map[string][]byte{},
	})
}

func fixture(t testing.TB, rel string) string {
	t.Helper()
	return filepath.ToSlash(fstest.Fixture(t, "precomputed/"+rel))
}

// TestPrecomputed checks the info-only fixtures and reads a chunk written
// here (no fixture has chunks): a 2-channel raw volume, x fastest.
func TestPrecomputed(t *testing.T) {
	ctx := context.Background()
	n, fsys, err := array.OpenNode(ctx, "file:"+fixture(t, "two_channels")+"/|neuroglancer-precomputed:", nil)
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
	a, fsys, err := array.OpenArray(ctx, "file:"+filepath.ToSlash(dir)+"/|neuroglancer-precomputed:", "s0", nil)
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
