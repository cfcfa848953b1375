package array

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"path"
	"strings"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// A Node describes one node of a hierarchy: an array or a group.
type Node struct {
	// Format is the name of the format that described the node (its
	// Format.Name: "zarr2", "zarr3", "n5", "neuroglancer-precomputed").
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
	// Source is the value whose ArrayNode gave the node (see Noder): the
	// format's own description, such as an *hdf5adapter.Dataset or an
	// *imageadapter.Image; nil for a node that a Format described.
	Source any `json:"-"`

	store driver.Tree // the node's directory
	root  driver.Tree // the tree Describe was given
	lim   vfs.Limits
	reg   *vfs.Registry // where Describe found the format
}

// Child describes the child node name of n (a group's child, or a
// precomputed volume's scale key).
func (n *Node) Child(ctx context.Context, name string) (*Node, error) {
	if n.root == nil {
		return nil, fmt.Errorf("node %s has no store: %w", n.Path, fs.ErrInvalid)
	}
	src := &Source{Tree: n.root, Limits: n.lim, Children: true, Registry: n.reg}
	return src.Describe(ctx, n.Format, path.Join(n.Path, name))
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

	// Reader reads the array's chunks; the Format that describes the
	// array sets it.
	Reader ChunkReader `json:"-"`

	// Concurrency is the number of chunks ReadBox, ReadAll and WriteBox
	// fetch and decode at once; 0 means DefaultConcurrency and 1 reads
	// chunk by chunk. Set it on a copy of the Array (the Array Describe
	// returns is shared).
	Concurrency int `json:"-"`
	// InFlight bounds the bytes that ReadBox, ReadAll and WriteBox hold
	// beyond the box: the stored and decoded bytes of the chunks they are
	// reading; 0 means DefaultInFlight. It lowers the number of chunks in
	// flight below Concurrency for large chunks (see the package doc). Set
	// it on a copy of the Array.
	InFlight int64 `json:"-"`

	store  driver.Tree
	limits vfs.Limits
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

// ErrUnsupported is matched by errors for codecs, data types and layouts
// that this package does not read; the message names them.
var ErrUnsupported = errors.ErrUnsupported

// Unsupported returns an error matching ErrUnsupported whose message is
// formatted from format and args, for a format to name what it does not
// read.
func Unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// CheckGrid validates a shape and chunk shape of size-byte elements:
// non-negative dimensions, positive chunk sizes, and an element count, a
// chunk byte size and a chunk count that fit in int64 and lim.MaxChunk
// (lim as vfs.Limits.Effective returns it). A format calls it on every
// array it describes, before anything is allocated from the shapes.
func CheckGrid(shape, chunk []int64, size int, lim vfs.Limits) error {
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
		if hi != 0 || chunkBytes > uint64(lim.MaxChunk) {
			return driver.Limitf("chunk shape %v of %d-byte elements exceeds the chunk limit of %d bytes", chunk, size, lim.MaxChunk)
		}
	}
	return nil
}

// Prod returns the product of s (1 for none). Callers have checked that it
// fits (CheckGrid bounds the products of an array's shapes).
func Prod(s []int64) int64 {
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
func (a *Array) ChunkBytes() int64 { return Prod(a.ChunkShape) * int64(a.DType.Size) }

// Size is the number of elements.
func (a *Array) Size() int64 { return Prod(a.Shape) }

// JoinInts writes s in decimal separated by sep ("1.0", "c/1/0" after its
// prefix), as chunk keys spell coordinates.
func JoinInts(s []int64, sep string) string {
	p := make([]string, len(s))
	for i, v := range s {
		p[i] = fmt.Sprint(v)
	}
	return strings.Join(p, sep)
}
