package array

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"sync"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// A Format is one array format: it reads a node's metadata and gives an
// array's chunks. It is the one place where a format plugs in; see the
// package documentation.
type Format interface {
	// Name is the format's name: the Node.Format of the nodes it
	// describes (or, for a format that picks one of several, such as
	// "zarr", the name Describe takes), and the scheme of its adapter.
	Name() string
	// Describe reads the metadata of the node at name (a valid fs path,
	// "." for the root) in src.Tree and returns the node: Format, Path,
	// IsArray, Attributes, Children (only when src.Children is set) and
	// Consolidated, and for an array an Array with every exported field,
	// Reader included, its shapes checked with CheckGrid against
	// src.Limits. A name that holds no node gives an error matching
	// fs.ErrNotExist; malformed metadata driver.ErrCorrupt; what the
	// format does not read ErrUnsupported. The core sets the node's
	// store afterwards: Array.Store is valid once Describe has returned,
	// not during it.
	Describe(ctx context.Context, src *Source, name string) (*Node, error)
}

// A ChunkReader reads the chunks of one array, on the read grid
// (Array.ChunkShape). The core checks coord against the grid before each
// call. A ChunkReader must be safe for concurrent use.
type ChunkReader interface {
	// ChunkKey returns the store key of the chunk at coord, relative to
	// the array's directory (Array.Store), and for a chunk inside a shard
	// its coordinates within the shard (nil otherwise).
	ChunkKey(coord []int64) (key string, inner []int64, err error)
	// ReadChunk decodes the chunk at coord: its full chunk shape, C
	// order, little endian, elements past the array's edges as fill.
	// found is false when no chunk is stored.
	ReadChunk(ctx context.Context, coord []int64) (data []byte, found bool, err error)
}

// A StringReader is a ChunkReader of a format with variable-length string
// types; Array.ReadStrings uses it for them.
type StringReader interface {
	// ReadStrings decodes the chunk at coord to its elements, C order, at
	// the full chunk shape, elements past the array's edges as fill, and
	// charges what it decodes to b. found is false when no chunk is
	// stored.
	ReadStrings(ctx context.Context, coord []int64, fill string, b *Budget) (s []string, found bool, err error)
}

// formatsKey keys the array formats among the values of a vfs.Registry.
type formatsKey struct{}

// formatTable holds the array formats of one vfs.Registry, by name.
type formatTable struct {
	mu sync.RWMutex
	m  map[string]Format
}

// formatsOf returns the array formats of g (nil: vfs.DefaultRegistry).
func formatsOf(g *vfs.Registry) *formatTable {
	if g == nil {
		g = vfs.DefaultRegistry
	}
	return g.Value(formatsKey{}, func() any { return &formatTable{m: map[string]Format{}} }).(*formatTable)
}

// Register adds f to the array formats of vfs.DefaultRegistry, as
// RegisterIn does. A format package calls it from its init function,
// beside vfs.RegisterAdapter.
func Register(f Format) { RegisterIn(vfs.DefaultRegistry, f) }

// RegisterIn makes f available under f.Name() to Describe, Node.Child and
// AdapterOpen wherever they use registry g (nil: vfs.DefaultRegistry): a
// Source whose Registry is g, a pipeline opened with Options.Registry g.
// The array formats of a registry are its own, as its schemes are: a
// program that opens pipelines with a Registry of its own registers there
// the array formats its adapters read. It panics when g has a format of
// that name already.
func RegisterIn(g *vfs.Registry, f Format) {
	t := formatsOf(g)
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.m[f.Name()]; dup {
		panic("array: format " + f.Name() + " registered twice")
	}
	t.m[f.Name()] = f
}

// Lookup returns the array format called name in registry g (nil:
// vfs.DefaultRegistry), or nil when g has none.
func Lookup(g *vfs.Registry, name string) Format {
	t := formatsOf(g)
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[name]
}

// A Source is the tree nodes are described in, with the limits of the
// description. Formats read metadata through its methods, which bound
// what they read by Limits.MaxDocument.
type Source struct {
	// Tree is the hierarchy's root directory.
	Tree driver.Tree
	// Limits bound metadata (MaxDocument) and decoded chunks (MaxChunk);
	// zero fields mean the defaults of vfs.Limits.
	Limits vfs.Limits
	// Children asks Describe to list a group's children; without it,
	// only the node's own metadata is read.
	Children bool
	// Registry holds the array formats that Describe finds by name (see
	// RegisterIn); nil means vfs.DefaultRegistry.
	Registry *vfs.Registry
}

// Describe describes the node at name (a slash-separated path, "." or ""
// for the root) of t in the format called format among the array formats
// of vfs.DefaultRegistry, listing a group's children (a Source with a
// Registry describes in another's). lim may be nil (the defaults). It validates the
// metadata: an unsupported codec, data type or key encoding gives an
// error matching ErrUnsupported that names it, malformed metadata an error
// matching driver.ErrCorrupt, a missing node fs.ErrNotExist.
func Describe(ctx context.Context, t driver.Tree, format, name string, lim *vfs.Limits) (*Node, error) {
	src := &Source{Tree: t, Children: true}
	if lim != nil {
		src.Limits = *lim
	}
	return src.Describe(ctx, format, name)
}

// Describe describes the node at name of s.Tree in the format called
// format among the array formats of s.Registry; see the function
// Describe.
func (s *Source) Describe(ctx context.Context, format, name string) (*Node, error) {
	if name == "" {
		name = "."
	}
	if !fs.ValidPath(name) {
		return nil, fmt.Errorf("node path %q: %w", name, fs.ErrInvalid)
	}
	f := Lookup(s.Registry, format)
	if f == nil {
		return nil, Unsupported("array format %q", format)
	}
	src := *s
	src.Limits = src.Limits.Effective()
	n, err := f.Describe(ctx, &src, name)
	if err != nil {
		return nil, err
	}
	n.store = driver.SubTree(src.Tree, name)
	n.root, n.lim, n.reg = src.Tree, src.Limits, src.Registry
	if n.Array != nil {
		if n.Array.Reader == nil {
			return nil, fmt.Errorf("array format %s described an array without a Reader", format)
		}
		n.Array.store = n.store
		n.Array.limits = src.Limits
	}
	return n, nil
}

// Exists reports whether name is a regular file in s.Tree.
func (s *Source) Exists(ctx context.Context, name string) (bool, error) {
	return exists(ctx, s.Tree, name)
}

func exists(ctx context.Context, t driver.Tree, name string) (bool, error) {
	info, err := t.Stat(ctx, name)
	if notNode(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return info.Mode().IsRegular(), nil
}

// ReadFile reads the metadata file name of s.Tree whole, failing with
// driver.ErrLimit past Limits.MaxDocument, and with driver.ErrCorrupt
// when it ends before its size.
func (s *Source) ReadFile(ctx context.Context, name string) ([]byte, error) {
	return readFile(ctx, s.Tree, name, s.Limits.Effective().MaxDocument, "Limits.MaxDocument")
}

// ReadJSON reads the metadata file name with ReadFile and decodes it into
// v; invalid JSON gives an error matching driver.ErrCorrupt. It returns the
// bytes read.
func (s *Source) ReadJSON(ctx context.Context, name string, v any) ([]byte, error) {
	b, err := s.ReadFile(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, driver.Corruptf("%s: %v", name, err)
	}
	return b, nil
}

// Subdirs lists the directories in dir of s.Tree that hold one of the
// regular files metas: a group's children.
func (s *Source) Subdirs(ctx context.Context, dir string, metas ...string) ([]string, error) {
	ents, err := s.Tree.ReadDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		for _, m := range metas {
			ok, err := s.Exists(ctx, path.Join(dir, e.Name(), m))
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, e.Name())
				break
			}
		}
	}
	return out, nil
}

// ReadFile reads name in t whole, failing with driver.ErrLimit when it is
// larger than max bytes, and with driver.ErrCorrupt when it ends before
// its size. Chunk readers read stored chunks with it.
func ReadFile(ctx context.Context, t driver.Tree, name string, max int64) ([]byte, error) {
	return readFile(ctx, t, name, max, "")
}

// readFile is ReadFile whose limit error names field, the Limits field
// that max comes from, if not "".
func readFile(ctx context.Context, t driver.Tree, name string, max int64, field string) ([]byte, error) {
	b, err := t.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	size := b.Stat().Size()
	if size > max {
		if field != "" {
			return nil, driver.Limitf("%s: %d bytes, more than %s (%d)", name, size, field, max)
		}
		return nil, driver.Limitf("%s: %d bytes, more than the limit of %d", name, size, max)
	}
	if size < 0 {
		return nil, driver.Corruptf("%s: negative size", name)
	}
	buf := make([]byte, size)
	n, err := b.ReadAt(ctx, buf, 0)
	if n == len(buf) && err == io.EOF {
		err = nil
	}
	if n < len(buf) && (err == nil || err == io.EOF) {
		// The file ends before the size it has: a bare io.EOF would
		// read as a clean end.
		return nil, driver.Corruptf("%s is truncated: %d of its %d bytes", name, n, size)
	}
	if err != nil {
		return nil, err
	}
	return buf, nil
}

// Numeric returns the DType of a fixed-size number or bool by its Zarr v3
// name ("int16", "float32", "bool", "complex64"), the names N5 and
// precomputed use too.
func Numeric(name string) (DType, bool) {
	switch name {
	case "bool":
		return DType{Name: name, Size: 1, Kind: 'b', Unit: 1}, true
	case "int8", "int16", "int32", "int64":
		s, _ := strconv.Atoi(name[3:])
		return DType{Name: name, Size: s / 8, Kind: 'i', Unit: s / 8}, true
	case "uint8", "uint16", "uint32", "uint64":
		s, _ := strconv.Atoi(name[4:])
		return DType{Name: name, Size: s / 8, Kind: 'u', Unit: s / 8}, true
	case "float16", "float32", "float64":
		s, _ := strconv.Atoi(name[5:])
		return DType{Name: name, Size: s / 8, Kind: 'f', Unit: s / 8}, true
	case "complex64", "complex128":
		s, _ := strconv.Atoi(name[7:])
		return DType{Name: name, Size: s / 8, Kind: 'c', Unit: s / 16}, true
	}
	return DType{}, false
}

// Store returns the array's directory in its store, where ChunkKey's keys
// are; valid once Describe has returned.
func (a *Array) Store() driver.Tree { return a.store }

// Limits returns the limits the array was described under, defaults
// filled in.
func (a *Array) Limits() vfs.Limits { return a.limits.Effective() }
