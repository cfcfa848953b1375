package xzadapter_test

import (
	"context"
	"os"
	"testing"

	"github.com/pipefs/pipefs/adapters/xzadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestInputErrors: an error of the input, wherever it strikes, comes back
// as itself and never as corrupt data; so does a cancelled context.
func TestInputErrors(t *testing.T) {
	z, err := os.ReadFile("testdata/random.bin.xz")
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(z))
	fstest.CheckInputErrors(t, z, []int64{0, 3, 12, 40, size / 3, size / 2, size - 40, size - 1},
		func(ctx context.Context, src driver.Blob) (driver.Blob, error) {
			loc, err := xzadapter.Open(ctx, src, vfs.SubURL{}, vfs.NewEnv("memory:/x", "", nil))
			return loc.Blob, err
		})
}
