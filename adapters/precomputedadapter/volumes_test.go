package precomputedadapter_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
)

// jpegTolerance is how far a voxel of a jpeg scale may be from what
// libjpeg decodes from the same chunk (4:4:4, quality 95): the two
// decoders' inverse DCTs and colour conversions round differently.
const jpegTolerance = 3

// TestVolumes reads every scale of the volumes that
// scripts/precomputedfixtures.py wrote (raw, jpeg, png and
// compressed_segmentation; unsharded and sharded, with the identity and
// murmurhash3_x86_128 hashes, raw and gzip indexes and data; voxel
// offsets, edge chunks, missing chunks) and compares them with the voxels
// the script recorded: whole, by boxes, and chunk by chunk.
func TestVolumes(t *testing.T) {
	ctx := context.Background()
	vols, err := filepath.Glob("testdata/*/info")
	if err != nil || len(vols) < 5 {
		t.Fatalf("volumes: %v %v", vols, err)
	}
	for _, infoPath := range vols {
		dir, _ := filepath.Abs(filepath.Dir(infoPath))
		var info struct {
			Scales []struct {
				Key      string          `json:"key"`
				Encoding string          `json:"encoding"`
				Sharding json.RawMessage `json:"sharding"`
			} `json:"scales"`
		}
		b, _ := os.ReadFile(infoPath)
		if err := json.Unmarshal(b, &info); err != nil {
			t.Fatal(err)
		}
		for _, s := range info.Scales {
			t.Run(filepath.Base(dir)+"/"+s.Key, func(t *testing.T) {
				want, err := os.ReadFile(filepath.Join(dir, "expected", s.Key+".bin"))
				if err != nil {
					t.Fatal(err)
				}
				o := &vfs.Options{Cache: vfs.NewCache(0)}
				a, fsys, err := array.OpenArray(ctx, "file:"+filepath.ToSlash(dir)+"/|neuroglancer-precomputed:", s.Key, o)
				if err != nil {
					t.Fatal(err)
				}
				defer fsys.Close()
				if _, ok := a.Reader.(array.ExtentReader); ok != (len(s.Sharding) > 0) {
					t.Errorf("sharded %v, but ExtentReader %v", len(s.Sharding) > 0, ok)
				}
				tol := 0
				if s.Encoding == "jpeg" {
					tol = jpegTolerance
				}
				got, err := a.ReadAll(ctx, 0)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, "ReadAll", got, want, a.DType.Size, tol)
				// A box across chunk boundaries, one chunk at a time.
				one := *a
				one.Concurrency = 1
				start, stop := []int64{0, 1, 3, 2}, []int64{a.Shape[0], 4, 8, 9}
				box, err := one.ReadBox(ctx, start, stop, 0)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, "ReadBox", box, cut(want, a.Shape, start, stop, a.DType.Size), a.DType.Size, tol)
				// Chunk by chunk, through ReadChunk.
				g := a.GridShape()
				missing := 0
				array.ForEachIndex(g, func(_ int64, c []int64) {
					ch, err := a.ReadChunk(ctx, c)
					if err != nil {
						t.Fatalf("chunk %v: %v", c, err)
					}
					if ch.Missing {
						missing++
					}
					lo, hi := make([]int64, 4), make([]int64, 4)
					for i := range c {
						lo[i] = c[i] * a.ChunkShape[i]
						hi[i] = lo[i] + ch.Valid[i]
					}
					part := make([]byte, len(ch.Data))
					array.CopyBox(part, ch.Valid, make([]int64, 4), ch.Data, a.ChunkShape, make([]int64, 4), ch.Valid, a.DType.Size)
					n := array.Prod(ch.Valid) * int64(a.DType.Size)
					compare(t, "chunk", part[:n], cut(want, a.Shape, lo, hi, a.DType.Size), a.DType.Size, tol)
				})
				t.Logf("%d chunks, %d missing", array.Prod(g), missing)
			})
		}
	}
}

// cut returns the box [lo, hi) of the C-order array b of shape.
func cut(b []byte, shape, lo, hi []int64, es int) []byte {
	ext := make([]int64, len(lo))
	for i := range ext {
		ext[i] = hi[i] - lo[i]
	}
	out := make([]byte, array.Prod(ext)*int64(es))
	array.CopyBox(out, ext, make([]int64, len(lo)), b, shape, lo, ext, es)
	return out
}

// compare checks got against want, byte by byte for es-byte elements
// (tol: the largest difference of a 1-byte element).
func compare(t *testing.T, what string, got, want []byte, es, tol int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	bad, worst := 0, 0
	for i := range got {
		d := int(got[i]) - int(want[i])
		if d < 0 {
			d = -d
		}
		if es > 1 && d != 0 || d > tol {
			if bad == 0 {
				t.Errorf("%s: byte %d is %d, want %d", what, i, got[i], want[i])
			}
			bad++
		}
		worst = max(worst, d)
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d bytes differ (worst by %d)", what, bad, len(got), worst)
	}
	if tol > 0 && !strings.HasPrefix(what, "chunk") {
		t.Logf("%s: worst difference %d", what, worst)
	}
}
