package composition_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/adapters/imageadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// TestFileNodes checks that array.OpenNode opens the datasets that are
// files (an image, an HDF5 dataset), named with their adapter or detected,
// and that a pipeline asking for a directory of a detected image fails as
// not a directory instead of detecting formats in the pixels.
func TestFileNodes(t *testing.T) {
	ctx := context.Background()
	png, err := filepath.Abs(filepath.Join("..", "adapters", "imageadapter", "testdata", "images", "png-gray1.png"))
	if err != nil {
		t.Fatal(err)
	}
	tif, err := filepath.Abs(filepath.Join("..", "adapters", "imageadapter", "testdata", "images", "tiff-multipage.tif"))
	if err != nil {
		t.Fatal(err)
	}
	h5 := fstest.Fixture(t, "hdf5/earliest.hdf5")
	for _, c := range []struct {
		pipeline, format, path string
		shape                  []int64
	}{
		{"file:" + filepath.ToSlash(png) + "|png:", "png", ".", []int64{24, 32, 1}},
		{"file:" + filepath.ToSlash(png), "png", ".", []int64{24, 32, 1}},
		{"file:" + filepath.ToSlash(tif) + "|pipefs.pages:page/2", "tiff", ".", []int64{6, 8, 3}},
		{"file:" + filepath.ToSlash(h5) + "|hdf5:/group1/dataset2", "hdf5", "/group1/dataset2", []int64{4}},
		{"file:" + filepath.ToSlash(h5) + "|hdf5:group1/subgroup1/dataset3", "hdf5", "/group1/subgroup1/dataset3", []int64{4}},
	} {
		n, held, err := array.OpenNode(ctx, c.pipeline, nil)
		if err != nil {
			t.Errorf("OpenNode(%s): %v", c.pipeline, err)
			continue
		}
		if n.Format != c.format || n.Path != c.path || n.Array == nil || !slices.Equal(n.Array.Shape, c.shape) {
			t.Errorf("OpenNode(%s) = format %s, path %s, array %v; want %s, %s, shape %v", c.pipeline, n.Format, n.Path, n.Array, c.format, c.path, c.shape)
		} else if !sourceIs(n, c.format) {
			t.Errorf("OpenNode(%s).Source = %T, want the %s description", c.pipeline, n.Source, c.format)
		} else if _, err := n.Array.ReadAll(ctx, 1<<20); err != nil {
			t.Errorf("OpenNode(%s): ReadAll: %v", c.pipeline, err)
		}
		held.Close()
	}
	_, err = vfs.OpenFS(ctx, "file:"+filepath.ToSlash(png), nil)
	if !errors.Is(err, vfs.ErrNotDir) {
		t.Errorf("OpenFS(image) error = %v, want ErrNotDir", err)
	}
}

// TestFileNodeErrors checks that array.OpenNode reports why a file node
// could not be opened (a cancelled context stays a cancellation, a missing
// dataset is missing) instead of trying the pipeline again as a directory.
func TestFileNodeErrors(t *testing.T) {
	h5 := "file:" + filepath.ToSlash(fstest.Fixture(t, "hdf5/earliest.hdf5"))
	png, err := filepath.Abs(filepath.Join("..", "adapters", "imageadapter", "testdata", "images", "png-gray1.png"))
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		ctx      context.Context
		pipeline string
		want     error
	}{
		{cancelled, h5 + "|hdf5:/group1/dataset2", context.Canceled},
		{cancelled, "file:" + filepath.ToSlash(png), context.Canceled},
		{context.Background(), h5 + "|hdf5:/group1/nope", fs.ErrNotExist},
	} {
		if _, _, err := array.OpenNode(c.ctx, c.pipeline, nil); !errors.Is(err, c.want) {
			t.Errorf("OpenNode(%s) error = %v, want %v", c.pipeline, err, c.want)
		}
	}
}

// sourceIs reports whether n's Source is the description its format gives.
func sourceIs(n *array.Node, format string) bool {
	switch n.Source.(type) {
	case *hdf5adapter.Dataset:
		return format == "hdf5"
	case *imageadapter.Image:
		return format != "hdf5"
	}
	return false
}
