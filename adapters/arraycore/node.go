package arraycore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"path"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Format names, as Node.Format reports them. They are also the adapter
// schemes.
const (
	FormatZarr2       = "zarr2"
	FormatZarr3       = "zarr3"
	FormatN5          = "n5"
	FormatPrecomputed = "neuroglancer-precomputed"
)

// A Node describes one node of a hierarchy: an array or a group.
type Node struct {
	// Format is FormatZarr2, FormatZarr3, FormatN5 or FormatPrecomputed.
	Format string `json:"format"`
	// Path is the node's path in the store it was described in, "." for
	// the store's root.
	Path string `json:"path"`
	// IsArray reports an array; a group has Array nil.
	IsArray bool `json:"is_array"`
	// Attributes are the user attributes as stored (a JSON object; "{}"
	// when there are none).
	Attributes json.RawMessage `json:"attributes"`
	// Children are the names of the child nodes of a group, sorted (for a
	// precomputed volume, the scale keys).
	Children []string `json:"children,omitempty"`
	// Consolidated reports that the children came from consolidated
	// metadata.
	Consolidated bool `json:"consolidated,omitempty"`
	// Array is the array of an array node.
	Array *Array `json:"array,omitempty"`

	store driver.Tree // the node's directory
	root  driver.Tree // the tree Describe was given
	lim   Limits
}

// Child describes the child node name of n (a group's child, or a
// precomputed volume's scale key).
func (n *Node) Child(ctx context.Context, name string) (*Node, error) {
	if n.root == nil {
		return nil, fmt.Errorf("node %s has no store: %w", n.Path, fs.ErrInvalid)
	}
	lim := n.lim
	return Describe(ctx, n.root, n.Format, path.Join(n.Path, name), &lim)
}

// A DType is an element type.
type DType struct {
	// Name is the Zarr v3 name ("int16", "float32", "bool", "complex64"),
	// or for fixed-size strings and bytes "fixed_length_utf32[N]" (N code
	// points), "bytes[N]", "raw[N]", for datetimes "datetime64[unit]" and
	// "timedelta64[unit]", and "string" or "bytes" for variable length.
	Name string `json:"name"`
	// Size is the size of one element in bytes; 0 for variable length.
	Size int `json:"size"`
	// Kind is the NumPy kind letter: b i u f c S U V M m O.
	Kind byte `json:"-"`
	// Unit is the size of the units whose byte order the element has
	// (Size for numbers, Size/2 for complex, 4 for U, 1 for bytes).
	Unit int `json:"-"`
	// Stored is the type as the metadata spells it ("<i2", "int16").
	Stored string `json:"stored"`
}

// Variable reports a variable-length type (strings, bytes, objects).
func (d DType) Variable() bool { return d.Size == 0 }

// A Codec is a codec, compressor or filter as the metadata names it.
type Codec struct {
	Name   string          `json:"name"`
	Config json.RawMessage `json:"configuration,omitempty"`
}

// An Array is the typed description of an array node, and the means to
// read it. Shapes are in C order (last axis fastest); N5 and precomputed
// arrays are presented with their axes reversed (see the package docs).
type Array struct {
	// Shape is the array's shape.
	Shape []int64 `json:"shape"`
	// ChunkShape is the read grid: the shape of the chunks ReadChunk
	// returns (the inner chunks of a sharded Zarr v3 array).
	ChunkShape []int64 `json:"chunk_shape"`
	// ShardShape is the shape of a shard of a sharded Zarr v3 array.
	ShardShape []int64 `json:"shard_shape,omitempty"`
	// DType is the element type.
	DType DType `json:"data_type"`
	// Fill is one element of fill value, little endian; nil when the
	// metadata leaves it undefined (reads give zeros).
	Fill []byte `json:"-"`
	// FillValue is the fill value as the metadata writes it.
	FillValue json.RawMessage `json:"fill_value"`
	// DimensionNames holds the axis names ("" for unnamed), or nil. For
	// Zarr v2 it comes from the xarray attribute _ARRAY_DIMENSIONS.
	DimensionNames []string `json:"dimension_names,omitempty"`
	// Codecs are the Zarr v3 codecs, as written; for Zarr v2 the filters
	// then the compressor; for N5 the compression; for precomputed the
	// encoding.
	Codecs []Codec `json:"codecs"`
	// Order is the Zarr v2 element order inside a chunk, "C" or "F".
	Order string `json:"order,omitempty"`
	// KeyEncoding describes how chunk keys are written ("default /",
	// "v2 .", "n5", "precomputed <scale>").
	KeyEncoding string `json:"chunk_key_encoding"`

	reader chunkReader
	store  driver.Tree
	limits Limits
}

// Chunk is one decoded chunk.
type Chunk struct {
	// Data holds the chunk's elements in C order, little endian, at the
	// full chunk shape; elements outside the array are fill.
	Data []byte
	// Shape is Array.ChunkShape.
	Shape []int64
	// Valid is the extent of the chunk inside the array (smaller than
	// Shape at the array's upper edges).
	Valid []int64
	// Missing reports that no chunk is stored: Data is all fill.
	Missing bool
}

// Limits bound what hostile metadata can make a reader allocate. A zero
// field means its default.
type Limits struct {
	// MaxChunkBytes bounds the decoded size of one chunk (and of one
	// shard's index). Default 1 GiB.
	MaxChunkBytes int64
	// MaxMetadataBytes bounds a metadata file. Default 64 MiB.
	MaxMetadataBytes int64
}

// Defaults of the Limits fields.
const (
	DefaultMaxChunkBytes    = 1 << 30
	DefaultMaxMetadataBytes = 64 << 20
)

func (l Limits) effective() Limits {
	if l.MaxChunkBytes <= 0 {
		l.MaxChunkBytes = DefaultMaxChunkBytes
	}
	if l.MaxMetadataBytes <= 0 {
		l.MaxMetadataBytes = DefaultMaxMetadataBytes
	}
	return l
}

// ErrUnsupported is matched by errors for codecs, data types and layouts
// that this package does not read; the message names them.
var ErrUnsupported = errors.ErrUnsupported

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// chunkReader reads one chunk of the read grid: full chunk shape, C order,
// little endian. found is false when the chunk is not stored.
type chunkReader interface {
	key(coord []int64) (string, []int64, error)
	read(ctx context.Context, coord []int64) (data []byte, found bool, err error)
}

// Describe describes the node at path (a slash-separated name in t, "."
// for t's root) in format: FormatZarr2, FormatZarr3, FormatN5,
// FormatPrecomputed, or "zarr" for whichever Zarr version the node has. It
// validates the metadata: an unsupported codec, data type or key
// encoding gives an error matching ErrUnsupported that names it, malformed
// metadata an error matching driver.ErrCorrupt, a missing node
// fs.ErrNotExist.
func Describe(ctx context.Context, t driver.Tree, format, name string, lim *Limits) (*Node, error) {
	return describe(ctx, t, format, name, lim, true)
}

func describe(ctx context.Context, t driver.Tree, format, name string, lim *Limits, children bool) (*Node, error) {
	if name == "" {
		name = "."
	}
	if !fs.ValidPath(name) {
		return nil, fmt.Errorf("node path %q: %w", name, fs.ErrInvalid)
	}
	var l Limits
	if lim != nil {
		l = *lim
	}
	d := &describer{ctx: ctx, root: t, lim: l.effective(), children: children}
	var (
		n   *Node
		err error
	)
	switch format {
	case "zarr":
		n, err = d.zarr(name)
	case FormatZarr2:
		n, err = d.zarr2(name)
	case FormatZarr3:
		n, err = d.zarr3(name)
	case FormatN5:
		n, err = d.n5(name)
	case FormatPrecomputed:
		n, err = d.precomputed(name)
	default:
		return nil, unsupported("array format %q", format)
	}
	if err != nil {
		return nil, err
	}
	n.store = driver.SubTree(t, name)
	n.root, n.lim = t, d.lim
	if n.Array != nil {
		n.Array.store = n.store
		n.Array.limits = d.lim
	}
	return n, nil
}

// describer carries what describing one node needs.
type describer struct {
	ctx      context.Context
	root     driver.Tree
	lim      Limits
	children bool
}

// zarr describes a Zarr node of either version: v3 when zarr.json exists.
func (d *describer) zarr(name string) (*Node, error) {
	if ok, err := d.exists(path.Join(name, "zarr.json")); err != nil {
		return nil, err
	} else if ok {
		return d.zarr3(name)
	}
	return d.zarr2(name)
}

func (d *describer) exists(name string) (bool, error) {
	return exists(d.ctx, d.root, name)
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

// readFile reads a metadata file whole, up to the metadata limit.
func (d *describer) readFile(name string) ([]byte, error) {
	return readBlob(d.ctx, d.root, name, d.lim.MaxMetadataBytes)
}

// readBlob reads name in t whole, failing when it is larger than max.
func readBlob(ctx context.Context, t driver.Tree, name string, max int64) ([]byte, error) {
	b, err := t.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	size := b.Stat().Size()
	if size > max {
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
	if err != nil {
		return nil, err
	}
	return buf, nil
}

// readJSON reads and decodes a metadata file.
func (d *describer) readJSON(name string, v any) ([]byte, error) {
	b, err := d.readFile(name)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, driver.Corruptf("%s: %v", name, err)
	}
	return b, nil
}

// subdirs lists the directories in dir whose metadata file meta exists.
func (d *describer) subdirs(dir string, metas ...string) ([]string, error) {
	ents, err := d.root.ReadDir(d.ctx, dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		for _, m := range metas {
			ok, err := d.exists(path.Join(dir, e.Name(), m))
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

// checkGrid validates a shape and chunk shape: non-negative dimensions,
// positive chunk sizes, and an element count, a chunk byte size and a
// chunk count that fit in int64 and the limits.
func checkGrid(shape, chunk []int64, size int, lim Limits) error {
	if len(shape) != len(chunk) {
		return driver.Corruptf("shape has %d dimensions, chunk shape %d", len(shape), len(chunk))
	}
	if len(shape) > 32 {
		return driver.Limitf("%d dimensions, more than 32", len(shape))
	}
	total := uint64(1)
	chunkBytes := uint64(max(size, 1))
	for i := range shape {
		if shape[i] < 0 {
			return driver.Corruptf("negative dimension %d", shape[i])
		}
		if chunk[i] <= 0 {
			return driver.Corruptf("chunk dimension %d is not positive", chunk[i])
		}
		var hi uint64
		hi, total = bits.Mul64(total, uint64(shape[i]))
		if hi != 0 || total > math.MaxInt64/uint64(max(size, 1)) {
			return driver.Limitf("shape %v overflows", shape)
		}
		hi, chunkBytes = bits.Mul64(chunkBytes, uint64(chunk[i]))
		if hi != 0 || chunkBytes > uint64(lim.MaxChunkBytes) {
			return driver.Limitf("chunk shape %v of %d-byte elements exceeds the chunk limit of %d bytes", chunk, size, lim.MaxChunkBytes)
		}
	}
	return nil
}

// prod returns the product of s (1 for none). Callers have checked that it
// fits.
func prod(s []int64) int64 {
	p := int64(1)
	for _, v := range s {
		p *= v
	}
	return p
}

// GridShape returns the number of chunks along each axis.
func (a *Array) GridShape() []int64 {
	g := make([]int64, len(a.Shape))
	for i := range g {
		g[i] = (a.Shape[i] + a.ChunkShape[i] - 1) / a.ChunkShape[i]
	}
	return g
}

// ChunkBytes is the decoded size of one chunk in bytes.
func (a *Array) ChunkBytes() int64 { return prod(a.ChunkShape) * int64(a.DType.Size) }

// Size is the number of elements.
func (a *Array) Size() int64 { return prod(a.Shape) }

func joinInts(s []int64, sep string) string {
	p := make([]string, len(s))
	for i, v := range s {
		p[i] = fmt.Sprint(v)
	}
	return strings.Join(p, sep)
}
