// Package zarradapter registers the zarr:, zarr2: and zarr3: adapters of
// pipefs, which open a Zarr v2 or v3 node inside a directory:
//
//	file:/d/data.zarr/|zarr3:group/array
//	https://h/scan.zip|zip:scan.zarr/|zarr2:
//	file:/d/data.zarr/|zarr:       (v3 when zarr.json exists, else v2)
//
// The path names a node (array or group) in the hierarchy rooted at the
// base directory. Opening validates the node's metadata (an unsupported
// codec, data type or key encoding fails the open with an error matching
// errors.ErrUnsupported that names it) and yields the node's directory as
// stored: zarr.json or .zarray/.zgroup/.zattrs, chunk keys and child
// nodes, bytes untouched, so testing/fstest.TestFS holds on it.
//
// The typed description is Stat(".").Sys() of the resulting FS: a
// *vfs.Origin whose Header is an *array.Node, whose Array field (for
// arrays) reads chunks and boxes. See package array for the description,
// boxes, strings and limits, and [Describe] to describe a node of any tree
// directly.
//
// # Formats
//
// Three array formats are registered with package array: "zarr2" and
// "zarr3" ([FormatZarr2], [FormatZarr3]), and "zarr", which describes a
// node as zarr3 when it has a zarr.json, else as zarr2.
//
// Zarr v3 fails on unknown keys and codecs unless they say
// "must_understand": false. A Zarr v3 group's inline consolidated metadata
// gives its children; a Zarr v2 store's .zmetadata is used only when the
// store cannot be listed (it may be stale). Shards are read with two range
// reads: the index (cached for the last 256 shards of an array) and the
// inner chunk; every range in an index is checked against the shard's
// size, and every decoded size against the chunk's.
//
// Codecs: Zarr v3 bytes (either endian), transpose, numcodecs.delta,
// gzip, zstd, blosc, crc32c and sharding_indexed (index at the end or the
// start, nested shards), and vlen-utf8 and vlen-bytes for
// Array.ReadStrings; Zarr v2 compressors zlib, gzip, bz2, zstd, lz4,
// blosc, lzma (xz and legacy), filters shuffle, delta, fixedscaleoffset,
// bitround, quantize, astype, crc32, adler32, crc32c, and vlen-utf8,
// vlen-bytes and json2 for Array.ReadStrings.
//
// # Detection
//
// Two dataset formats are registered: "zarr v3" (a zarr.json file, adapter
// zarr3:) and "zarr v2" (.zarray, .zgroup or .zattrs, adapter zarr2:).
//
// # Limits
//
// vfs.Limits.MaxDocument bounds a metadata file and vfs.Limits.MaxChunk
// the decoded size of one chunk or shard index.
package zarradapter

import (
	"context"
	"path"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// The names of the formats, as Node.Format reports them. They are also
// the adapter schemes.
const (
	FormatZarr2 = "zarr2"
	FormatZarr3 = "zarr3"
)

func init() {
	// ".zarr" names a Zarr of either version.
	extensions := map[string][]string{"zarr": {".zarr"}}
	for _, f := range []format{
		{"zarr", (*describer).zarr},
		{FormatZarr2, (*describer).zarr2},
		{FormatZarr3, (*describer).zarr3},
	} {
		array.Register(f)
		vfs.RegisterAdapter(&vfs.Adapter{Scheme: f.name, OpenDir: array.AdapterOpen(f.name), Extensions: extensions[f.name]})
	}
	vfs.RegisterFormat(&vfs.Format{Name: "zarr v3", Adapter: "zarr3:", Input: vfs.KindDirectory, Dataset: true,
		MatchDir: array.HasFile("zarr.json")})
	vfs.RegisterFormat(&vfs.Format{Name: "zarr v2", Adapter: "zarr2:", Input: vfs.KindDirectory, Dataset: true,
		MatchDir: array.HasFile(".zarray", ".zgroup", ".zattrs")})
}

// format is one of the array formats of this package.
type format struct {
	name     string
	describe func(d *describer, name string) (*array.Node, error)
}

func (f format) Name() string { return f.name }

func (f format) Describe(ctx context.Context, src *array.Source, name string) (*array.Node, error) {
	return f.describe(&describer{array.NewDescriber(ctx, src)}, name)
}

// Describe describes the Zarr node at name (a slash-separated path, "."
// for the root) of the hierarchy in t, of either version. lim may be nil
// (the defaults).
func Describe(ctx context.Context, t driver.Tree, name string, lim *vfs.Limits) (*array.Node, error) {
	return array.Describe(ctx, t, "zarr", name, lim)
}

// zarr describes a Zarr node of either version: v3 when zarr.json exists.
func (d *describer) zarr(name string) (*array.Node, error) {
	if ok, err := d.Exists(path.Join(name, "zarr.json")); err != nil {
		return nil, err
	} else if ok {
		return d.zarr3(name)
	}
	return d.zarr2(name)
}
