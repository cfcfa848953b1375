package array_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// namedGrid is gridFormat under another name.
type namedGrid struct{ name string }

func (g namedGrid) Name() string { return g.name }

func (g namedGrid) Describe(ctx context.Context, src *array.Source, name string) (*array.Node, error) {
	n, err := gridFormat{}.Describe(ctx, src, name)
	if n != nil {
		n.Format = g.name
	}
	return n, err
}

// TestRegistryFormats checks that the array formats of a program's own
// vfs.Registry are its own: its adapter finds the format registered in it
// and no other, Node.Child and a Source with the Registry look there too,
// and vfs.DefaultRegistry neither has its formats nor lends it its own.
func TestRegistryFormats(t *testing.T) {
	ctx := context.Background()
	reg := new(vfs.Registry)
	reg.RegisterRoot(&vfs.Root{Scheme: "memory", Open: func(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		return driver.Location{Tree: array.FSTree(gridStore), Path: "."}, nil
	}})
	reg.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.grid", OpenDir: array.AdapterOpen("pipefs.grid")})
	o := &vfs.Options{Registry: reg, Cache: vfs.NewCache(0)}

	if _, _, err := array.OpenNode(ctx, "memory:|pipefs.grid:g", o); !errors.Is(err, array.ErrUnsupported) {
		t.Fatalf("OpenNode before the format is registered: %v, want ErrUnsupported", err)
	}
	array.RegisterIn(reg, namedGrid{"pipefs.grid"})
	g, c, err := array.OpenNode(ctx, "memory:|pipefs.grid:g", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if g.Format != "pipefs.grid" || !slices.Equal(g.Children, []string{"a"}) {
		t.Fatalf("group g: format %q, children %v", g.Format, g.Children)
	}
	if a, err := g.Child(ctx, "a"); err != nil || !a.IsArray || a.Format != "pipefs.grid" {
		t.Errorf("Child(a) = %+v, %v; want a pipefs.grid array", a, err)
	}

	src := &array.Source{Tree: array.FSTree(gridStore), Registry: reg}
	if n, err := src.Describe(ctx, "pipefs.grid", "g/a"); err != nil || !n.IsArray {
		t.Errorf("Describe in the program's registry: %+v, %v", n, err)
	}
	if _, err := src.Describe(ctx, "test-grid", "g/a"); !errors.Is(err, array.ErrUnsupported) {
		t.Errorf("Describe in a format of the default registry only: %v, want ErrUnsupported", err)
	}
	if array.Lookup(reg, "test-grid") != nil || array.Lookup(nil, "pipefs.grid") != nil || array.Lookup(vfs.DefaultRegistry, "pipefs.grid") != nil {
		t.Error("a format of one registry is found in the other")
	}
	// Each registry has its own names: another registers pipefs.grid too.
	array.RegisterIn(new(vfs.Registry), namedGrid{"pipefs.grid"})
}
