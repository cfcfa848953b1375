package precomputedadapter_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// writeVolume writes an info file with one scale s0 (its JSON members
// after "key") and the files of s0.
func writeVolume(t *testing.T, dtype string, channels int, scale string, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	info := `{"@type":"neuroglancer_multiscale_volume","type":"image","data_type":"` + dtype + `","num_channels":` + string(rune('0'+channels)) +
		`,"scales":[{"key":"s0","size":[4,4,2],"chunk_sizes":[[4,4,2]],"resolution":[1,1,1],` + scale + `}]}`
	os.WriteFile(filepath.Join(dir, "info"), []byte(info), 0o644)
	os.Mkdir(filepath.Join(dir, "s0"), 0o755)
	for name, b := range files {
		os.WriteFile(filepath.Join(dir, "s0", name), b, 0o644)
	}
	return "file:" + filepath.ToSlash(dir) + "/|neuroglancer-precomputed:"
}

// TestRefusals: a scale in an encoding or sharding pipefs does not decode
// is described, and reading it fails with an error matching
// array.ErrUnsupported that names it and what pipefs reads.
func TestRefusals(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ dtype, scale, names string }{
		{"uint32", `"encoding":"compresso"`, `"compresso"`},
		{"float32", `"encoding":"fpzip"`, `"fpzip"`},
		{"uint16", `"encoding":"jpeg"`, "jpeg of 1 uint16"},
		{"uint8", `"encoding":"raw","sharding":{"@type":"neuroglancer_uint64_sharded_v1","hash":"xxhash","preshift_bits":0,"minishard_bits":0,"shard_bits":0}`, `"xxhash"`},
	} {
		url := writeVolume(t, c.dtype, 1, c.scale, map[string][]byte{"0-4_0-4_0-2": make([]byte, 128)})
		a, fsys, err := array.OpenArray(ctx, url, "s0", nil)
		if err != nil {
			t.Errorf("%s: describing: %v", c.scale, err)
			continue
		}
		_, err = a.ReadChunk(ctx, []int64{0, 0, 0, 0})
		fsys.Close()
		if !errors.Is(err, array.ErrUnsupported) || !strings.Contains(err.Error(), c.names) {
			t.Errorf("%s: read error %v, want ErrUnsupported naming %s", c.scale, err, c.names)
		}
	}
}

// TestHostile: malformed chunks and indexes give ErrCorrupt, sizes past
// the limits ErrLimit, never a panic.
func TestHostile(t *testing.T) {
	ctx := context.Background()
	shard := func(minishardBits int, extra string) string {
		return `"encoding":"raw","sharding":{"@type":"neuroglancer_uint64_sharded_v1","hash":"identity","preshift_bits":0,"minishard_bits":` +
			string(rune('0'+minishardBits)) + `,"shard_bits":0` + extra + `}`
	}
	for _, c := range []struct {
		name, dtype, scale string
		files              map[string][]byte
		lim                *vfs.Limits
		want               error
	}{
		{"short raw", "uint8", `"encoding":"raw"`, map[string][]byte{"0-4_0-4_0-2": make([]byte, 31)}, nil, driver.ErrCorrupt},
		{"bad gzip", "uint8", `"encoding":"raw"`, map[string][]byte{"0-4_0-4_0-2.gz": []byte("\x1f\x8bxx")}, nil, driver.ErrCorrupt},
		{"not a jpeg", "uint8", `"encoding":"jpeg"`, map[string][]byte{"0-4_0-4_0-2": []byte("nope")}, nil, driver.ErrCorrupt},
		{"png of the wrong size", "uint8", `"encoding":"png"`, map[string][]byte{"0-4_0-4_0-2": tinyPNG(t)}, nil, driver.ErrCorrupt},
		{"cseg garbage", "uint32", `"encoding":"compressed_segmentation","compressed_segmentation_block_size":[2,2,2]`,
			map[string][]byte{"0-4_0-4_0-2": []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}}, nil, driver.ErrCorrupt},
		{"shard shorter than its index", "uint8", shard(2, ""), map[string][]byte{"0.shard": make([]byte, 10)}, nil, driver.ErrCorrupt},
		{"minishard past the end", "uint8", shard(0, ""), map[string][]byte{"0.shard": append(make([]byte, 8), 0xff, 0, 0, 0, 0, 0, 0, 0)}, nil, driver.ErrCorrupt},
		{"shard index past MaxChunk", "uint8", shard(9, ""), map[string][]byte{"0.shard": make([]byte, 64)}, &vfs.Limits{MaxChunk: 4096}, driver.ErrLimit},
		{"gzip index of garbage", "uint8", shard(0, `,"minishard_index_encoding":"gzip"`),
			map[string][]byte{"0.shard": append(append(make([]byte, 8), 3, 0, 0, 0, 0, 0, 0, 0), "abc"...)}, nil, driver.ErrCorrupt},
	} {
		url := writeVolume(t, c.dtype, 1, c.scale, c.files)
		var o *vfs.Options
		if c.lim != nil {
			o = &vfs.Options{Limits: *c.lim}
		}
		a, fsys, err := array.OpenArray(ctx, url, "s0", o)
		if err == nil {
			_, err = a.ReadAll(ctx, 0)
			fsys.Close()
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// tinyPNG is a valid 1x1 gray png.
func tinyPNG(t *testing.T) []byte {
	return []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00:~\x9bU\x00\x00\x00\nIDATx\x9cc`\x00\x00\x00\x02\x00\x01H\xaf\xa4q\x00\x00\x00\x00IEND\xaeB`\x82")
}
