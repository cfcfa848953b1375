package n5adapter_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	_ "github.com/pipefs/pipefs/adapters/n5adapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

func fixture(t testing.TB, rel string) string {
	t.Helper()
	return filepath.ToSlash(fstest.Fixture(t, "n5/"+rel))
}

// TestGolden reads TensorStore's five golden datasets: C view [4, 5] with
// [y][x] = 4x+y, SHA-256 prefix 5c3dfcab6a19fd7b (ARRAYS.md section 8).
func TestGolden(t *testing.T) {
	ctx := context.Background()
	for _, c := range []string{"raw", "gzip", "bzip2", "xz", "blosc"} {
		t.Run(c, func(t *testing.T) {
			p := "file:" + fixture(t, "tensorstore_golden/"+c) + "/|n5:"
			fsys, err := vfs.OpenFS(ctx, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			info, err := fsys.Stat(".")
			if err != nil {
				t.Fatal(err)
			}
			n := array.NodeOf(info)
			if n == nil || n.Array == nil {
				t.Fatalf("Stat(\".\").Sys() = %#v, want an array node", info.Sys())
			}
			b, err := n.Array.ReadAll(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			s := sha256.Sum256(b)
			if got := hex.EncodeToString(s[:8]); got != "5c3dfcab6a19fd7b" {
				t.Errorf("sha256 = %s, want 5c3dfcab6a19fd7b", got)
			}
			if got := n.Array.Shape; len(got) != 2 || got[0] != 4 || got[1] != 5 {
				t.Errorf("Shape = %v, want [4 5]", got)
			}
			for y := 0; y < 4; y++ {
				for x := 0; x < 5; x++ {
					if v := binary.LittleEndian.Uint16(b[2*(y*5+x):]); int(v) != 4*x+y {
						t.Errorf("[%d][%d] = %d, want %d", y, x, v, 4*x+y)
					}
				}
			}
		})
	}
}

// TestMultiscale reads the metadata-only group: three datasets, all fill.
func TestMultiscale(t *testing.T) {
	ctx := context.Background()
	base := "file:" + fixture(t, "n5_viewer_multiscale_modern") + "/"
	fsys, err := vfs.OpenFS(ctx, base+"|n5:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	info, _ := fsys.Stat(".")
	n := array.NodeOf(info)
	if n == nil || n.IsArray || len(n.Children) != 3 {
		t.Fatalf("group = %+v, want 3 children", n)
	}
	s2, err := vfs.OpenFS(ctx, base+"|n5:s2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	info, _ = s2.Stat(".")
	a := array.NodeOf(info).Array
	b, err := a.ReadAll(ctx, 0)
	if err != nil || len(b) != 2*3*5 {
		t.Fatalf("ReadAll = %d bytes, %v", len(b), err)
	}
	for _, v := range b {
		if v != 0 {
			t.Fatal("missing blocks did not read as zeros")
		}
	}
}

func TestConformance(t *testing.T) {
	fstest.Run(t, fstest.Case{Pipeline: "file:" + fixture(t, "tensorstore_golden/gzip") + "/|n5:"})
}
