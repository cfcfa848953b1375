package array_test

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"testing"
	stdfstest "testing/fstest"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// gridFormat is a format of this test, written against the Format
// interface only: a node is a directory with grid.json, an array when it
// has a shape ({"shape": [...], "chunk": [...], "fill": n}, uint8
// elements), else a group; a chunk is stored raw at its full shape under
// its coordinates joined by "_".
type gridFormat struct{}

func (gridFormat) Name() string { return "test-grid" }

func (gridFormat) Describe(ctx context.Context, src *array.Source, name string) (*array.Node, error) {
	var m struct {
		Shape, Chunk []int64
		Fill         *byte
	}
	raw, err := src.ReadJSON(ctx, path.Join(name, "grid.json"), &m)
	if err != nil {
		return nil, err
	}
	n := &array.Node{Format: "test-grid", Path: name, Attributes: raw}
	if m.Shape == nil {
		if src.Children {
			n.Children, err = src.Subdirs(ctx, name, "grid.json")
		}
		return n, err
	}
	dt, _ := array.Numeric("uint8")
	if err := array.CheckGrid(m.Shape, m.Chunk, dt.Size, src.Limits); err != nil {
		return nil, err
	}
	a := &array.Array{Shape: m.Shape, ChunkShape: m.Chunk, DType: dt, Codecs: []array.Codec{}, KeyEncoding: "test _"}
	if m.Fill != nil {
		a.Fill = []byte{*m.Fill}
	}
	a.Reader = &gridReader{a}
	n.IsArray, n.Array = true, a
	return n, nil
}

type gridReader struct{ a *array.Array }

func (r *gridReader) ChunkKey(coord []int64) (string, []int64, error) {
	return array.JoinInts(coord, "_"), nil, nil
}

func (r *gridReader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	key, _, _ := r.ChunkKey(coord)
	b, err := array.ReadFile(ctx, r.a.Store(), key, r.a.Limits().MaxChunk)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) != r.a.ChunkBytes() {
		return nil, false, driver.Corruptf("chunk %s: %d bytes", key, len(b))
	}
	return b, true, nil
}

func init() { array.Register(gridFormat{}) }

// gridStore is a group g holding the 3x5 array g/a in 2x2 chunks, fill 9,
// with two chunks stored: 0_0 and the edge chunk 1_2, of which only the
// element [2, 4] is inside the array.
var gridStore = stdfstest.MapFS{
	"g/grid.json":   {Data: []byte(`{}`)},
	"g/a/grid.json": {Data: []byte(`{"shape":[3,5],"chunk":[2,2],"fill":9}`)},
	"g/a/0_0":       {Data: []byte{1, 2, 3, 4}},
	"g/a/1_2":       {Data: []byte{5, 6, 7, 8}},
}

// TestFormat checks what the core does for any format: box reads with
// fill and cropping, chunks, children, and the adapter's open.
func TestFormat(t *testing.T) {
	ctx := context.Background()
	if array.Lookup(nil, "test-grid") == nil {
		t.Fatal("Lookup(test-grid) = nil")
	}
	g, err := array.Describe(ctx, array.FSTree(gridStore), "test-grid", "g", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Children, []string{"a"}) || g.IsArray {
		t.Errorf("group g: children %v, IsArray %v", g.Children, g.IsArray)
	}
	n, err := g.Child(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	a := n.Array
	all, err := a.ReadAll(ctx, 0)
	want := []byte{1, 2, 9, 9, 9, 3, 4, 9, 9, 9, 9, 9, 9, 9, 5}
	if err != nil || !slices.Equal(all, want) {
		t.Errorf("ReadAll = %v, %v; want %v", all, err, want)
	}
	box, err := a.ReadBox(ctx, []int64{1, 1}, []int64{3, 5}, 8)
	if want := []byte{4, 9, 9, 9, 9, 9, 9, 5}; err != nil || !slices.Equal(box, want) {
		t.Errorf("ReadBox([1 1], [3 5]) = %v, %v; want %v", box, err, want)
	}
	if _, err := a.ReadBox(ctx, []int64{1, 1}, []int64{3, 5}, 7); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("ReadBox past its limit: %v, want ErrLimit", err)
	}
	if _, err := a.ReadBox(ctx, []int64{0, 0}, []int64{4, 5}, 0); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadBox outside the shape: %v, want ErrInvalid", err)
	}
	if key, inner, err := a.ChunkKey([]int64{1, 2}); key != "1_2" || inner != nil || err != nil {
		t.Errorf("ChunkKey([1 2]) = %q, %v, %v", key, inner, err)
	}
	if _, _, err := a.ChunkKey([]int64{2, 0}); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ChunkKey outside the grid: %v, want ErrInvalid", err)
	}
	c, err := a.ReadChunk(ctx, []int64{1, 2})
	if err != nil || c.Missing || !slices.Equal(c.Valid, []int64{1, 1}) || !slices.Equal(c.Data, []byte{5, 6, 7, 8}) {
		t.Errorf("ReadChunk([1 2]) = %+v, %v", c, err)
	}
	c, err = a.ReadChunk(ctx, []int64{0, 1})
	if err != nil || !c.Missing || !slices.Equal(c.Data, []byte{9, 9, 9, 9}) {
		t.Errorf("ReadChunk([0 1]) = %+v, %v; want missing, fill", c, err)
	}
	if _, err := a.ReadStrings(ctx, []int64{0, 0}, a.Shape, 0); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadStrings of uint8: %v, want ErrInvalid", err)
	}
	if _, err := array.Describe(ctx, array.FSTree(gridStore), "test-grid", "g/a", &vfs.Limits{MaxChunk: 3}); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("Describe with a chunk limit of 3 bytes: %v, want ErrLimit", err)
	}
	if _, err := array.Describe(ctx, array.FSTree(gridStore), "no-such-format", "g", nil); !errors.Is(err, array.ErrUnsupported) {
		t.Errorf("Describe in an unknown format: %v, want ErrUnsupported", err)
	}
}

// TestAdapterOpen checks that a path inside a node opens that name in the
// nearest node above it, and that the node's directory carries the node.
func TestAdapterOpen(t *testing.T) {
	ctx := context.Background()
	open := array.AdapterOpen("test-grid")
	env := vfs.NewEnv("mem:", "test-grid", nil)
	loc, err := open(ctx, array.FSTree(gridStore), vfs.SubURL{Scheme: "test-grid", Path: "g/a/1_2"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Path != "1_2" {
		t.Errorf("Path = %q, want 1_2", loc.Path)
	}
	info, err := loc.Tree.Stat(ctx, ".")
	if err != nil {
		t.Fatal(err)
	}
	if n := array.NodeOf(info); n == nil || n.Path != "g/a" || !n.IsArray {
		t.Errorf("NodeOf(Stat(.)) = %+v", n)
	}
	if _, err := open(ctx, array.FSTree(gridStore), vfs.SubURL{Scheme: "test-grid", Path: "h"}, env); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("open of no node: %v, want ErrNotExist", err)
	}
}

func TestRegisterTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Register of a second test-grid did not panic")
		}
	}()
	array.Register(gridFormat{})
}
