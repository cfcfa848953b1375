package composition_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
)

// A corruptCase damages one fixture file and reads a pipeline that
// needs it.
type corruptCase struct {
	name string
	file string                                    // the fixture file damaged, served in place of the original
	read func(ctx context.Context, p string) error // what is read
	p    string                                    // the pipeline below the server URL
}

// readTree opens p and reads every file of it.
func readTree(ctx context.Context, p string) error {
	fsys, err := vfs.OpenFS(ctx, p, opts())
	if err != nil {
		return err
	}
	defer fsys.Close()
	return fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			_, err = fs.ReadFile(fsys, name)
		}
		return err
	})
}

// readArrayErr opens the array p and reads it whole.
func readArrayErr(ctx context.Context, p string) error {
	a, fsys, err := array.OpenArray(ctx, p, "", opts())
	if err != nil {
		return err
	}
	defer fsys.Close()
	_, err = a.ReadAll(ctx, 1<<20)
	return err
}

var corruptCases = []corruptCase{
	{"ocdbt manifest", "ocdbt/multi_version_low_arity.ocdbt/manifest.ocdbt", readTree, "/ocdbt/multi_version_low_arity.ocdbt/|ocdbt:"},
	{"ocdbt version node", "ocdbt/multi_version_low_arity.ocdbt/d/fa51b2d3ce7f5bc1677b996b2aa83581", readTree, "/ocdbt/multi_version_low_arity.ocdbt/|ocdbt://v100/"},
	{"ocdbt b+tree nodes and values", "ocdbt/files_min_arity.ocdbt/d/f6d9da936d3f6f58b667ca9d54a38667", readTree, "/ocdbt/files_min_arity.ocdbt/|ocdbt:"},
	{"icechunk repo", "icechunk/test-repo-v2/repo", readTree, "/icechunk/test-repo-v2/|icechunk://tag.it%20works!/group1/small_chunks/"},
	{"icechunk snapshot", "icechunk/test-repo-v1/snapshots/NXH3M0HJ7EEJ0699DPP0", readTree, "/icechunk/test-repo-v1/|icechunk:group1/small_chunks/"},
	{"icechunk manifest", "icechunk/test-repo-v1/manifests/Q04J7QW5RQ8D17TPA10G", readTree, "/icechunk/test-repo-v1/|icechunk:group1/big_chunks/c/1/"},
	{"zarr3 shard", "zarr3/data.zarr/3d.chunked.compressed.sharded.i2/c/0/0/1", readArrayErr, "/zarr3/data.zarr/|zarr3:3d.chunked.compressed.sharded.i2"},
	{"zarr3 blosc chunk", "zarr3/data.zarr/1d.contiguous.blosc.i2/c/0", readArrayErr, "/zarr3/data.zarr/|zarr3:1d.contiguous.blosc.i2"},
	{"zarr2 blosc lz4 chunk", "zarr2/data.zarr/1d.contiguous.U13.le/0", readArrayErr, "/zarr2/data.zarr/|zarr2:1d.contiguous.U13.le"},
	{"n5 xz block", "n5/tensorstore_golden/xz/1/1", readArrayErr, "/n5/tensorstore_golden/xz/|n5:"},
}

// TestCorruptOverHTTP serves damaged copies of fixture files over http:
// cut at about 128 lengths, and with about 128 of their bytes flipped
// (every byte of a file up to 128 bytes). Reading gives an error, never a
// panic, and a cut always gives an error.
func TestCorruptOverHTTP(t *testing.T) {
	srv := server(t)
	ctx := context.Background()
	for _, tc := range corruptCases {
		t.Run(tc.name, func(t *testing.T) {
			orig, err := fs.ReadFile(fixtureFS(t), tc.file)
			if err != nil {
				t.Fatal(err)
			}
			srv.Set(tc.file, orig)
			defer srv.Set(tc.file, orig)
			if err := tc.read(ctx, srv.URL()+tc.p); err != nil {
				t.Fatalf("the intact fixture: %v", err)
			}
			step := 1 + len(orig)/128 // about 128 cuts and 128 flips, to stay fast
			for cut := 0; cut < len(orig); cut += step {
				srv.Set(tc.file, orig[:cut])
				if err := tc.read(ctx, srv.URL()+tc.p); err == nil {
					t.Errorf("cut at %d of %d bytes: no error", cut, len(orig))
				}
			}
			flipped := 0
			for i := 0; i < len(orig); i += step {
				b := append([]byte(nil), orig...)
				b[i] ^= 0x5a
				srv.Set(tc.file, b)
				if err := tc.read(ctx, srv.URL()+tc.p); err != nil {
					flipped++
				}
			}
			t.Logf("%s: %d bytes; %d of %d flips detected", tc.file, len(orig), flipped, (len(orig)+step-1)/step)
		})
	}
}
