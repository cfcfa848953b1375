package array_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs/driver"
)

// cutTree is a directory whose files another process cuts to half their
// size as soon as they are opened: the blob still has the size it was
// opened with, and reading it stops short at io.EOF.
type cutTree struct {
	driver.Tree
	dir string
}

func (t cutTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	b, err := t.Tree.OpenBlob(ctx, name)
	if err == nil {
		err = os.Truncate(filepath.Join(t.dir, filepath.FromSlash(name)), b.Stat().Size()/2)
	}
	return b, err
}

// Metadata or a chunk that ends before its size is corrupt data, an error
// that names the file and says it is truncated: never a bare io.EOF,
// which a caller takes for a clean end.
func TestTruncatedFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for name, f := range gridStore {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loc, err := fileroot.OpenPath(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	tree := cutTree{loc.Tree, dir}
	check := func(what, name string, err error) {
		t.Helper()
		if !errors.Is(err, driver.ErrCorrupt) || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("%s = %v; want ErrCorrupt naming %s as truncated, not io.EOF", what, err, name)
		}
	}
	_, err = array.Describe(ctx, tree, "test-grid", "g/a", nil)
	check("Describe(g/a) of cut metadata", "g/a/grid.json", err)
	_, err = array.ReadFile(ctx, tree, "g/a/0_0", 1<<20)
	check("ReadFile(g/a/0_0) of a cut chunk", "g/a/0_0", err)
}
