package zarradapter_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	stdfstest "testing/fstest"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs/driver"
)

var errDisk = errors.New("disk on fire")

// unlistable is a store that cannot be listed (as over HTTP), whose blob
// named bad fails with err.
type unlistable struct {
	driver.Tree
	bad string
	err error
}

func (t unlistable) ReadDir(context.Context, string) ([]fs.DirEntry, error) {
	return nil, fmt.Errorf("list: %w", errors.ErrUnsupported)
}

func (t unlistable) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if name == t.bad {
		return nil, t.err
	}
	return t.Tree.OpenBlob(ctx, name)
}

// TestConsolidatedErrors: over a store that cannot be listed, a group's
// children come from .zmetadata; an I/O error or bad JSON there is
// reported as such, not as the store's refusal to list.
func TestConsolidatedErrors(t *testing.T) {
	files := stdfstest.MapFS{
		".zgroup":     {Data: []byte(`{"zarr_format":2}`)},
		".zmetadata":  {Data: []byte(`{"metadata":{"a/.zarray":{}}}`)},
		"a/.zarray":   {Data: []byte(`{}`)},
		"bad/.zgroup": {Data: []byte(`{"zarr_format":2}`)},
	}
	base := array.FSTree(files)
	n, err := array.Describe(context.Background(), unlistable{Tree: base}, "zarr2", ".", nil)
	if err != nil || !n.Consolidated || len(n.Children) != 1 || n.Children[0] != "a" {
		t.Fatalf("Describe = %+v, %v; want consolidated children [a]", n, err)
	}
	_, err = array.Describe(context.Background(), unlistable{base, ".zmetadata", errDisk}, "zarr2", ".", nil)
	if !errors.Is(err, errDisk) {
		t.Errorf("Describe with .zmetadata failing = %v, want errDisk", err)
	}
	_, err = array.Describe(context.Background(), unlistable{base, ".zmetadata", context.Canceled}, "zarr2", ".", nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("Describe with .zmetadata cancelled = %v, want context.Canceled", err)
	}
	files[".zmetadata"] = &stdfstest.MapFile{Data: []byte(`{"metadata":`)}
	_, err = array.Describe(context.Background(), unlistable{Tree: base}, "zarr2", ".", nil)
	if !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("Describe with bad .zmetadata = %v, want ErrCorrupt", err)
	}
	delete(files, ".zmetadata")
	_, err = array.Describe(context.Background(), unlistable{Tree: base}, "zarr2", ".", nil)
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Describe with no .zmetadata = %v, want the listing's ErrUnsupported", err)
	}
	// A failing .zattrs is that failure, not a missing node.
	_, err = array.Describe(context.Background(), unlistable{base, "bad/.zattrs", errDisk}, "zarr2", "bad", nil)
	if !errors.Is(err, errDisk) || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Describe with .zattrs failing = %v, want errDisk", err)
	}
}
