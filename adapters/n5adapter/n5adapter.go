// Package n5adapter registers the n5: adapter of pipefs, which opens an
// N5 group or dataset inside a directory:
//
//	file:/d/c.n5/|n5:volumes/raw
//
// Opening validates the node's attributes.json and yields the node's
// directory as stored (attributes.json, the block tree, child nodes). The
// typed description is Stat(".").Sys() of the resulting FS: a *vfs.Origin
// whose Header is an *array.Node.
//
// N5 stores its first axis fastest and big endian; it is presented with
// its axes reversed, in C order (shape = reverse(dimensions)), as
// zarr-python did, so its blocks need only byte swapping. Block keys are
// "x/y/z" paths. Compressions: raw, gzip (and zlib), bzip2, xz, blosc and
// zstd.
//
// The array format "n5" ([FormatN5]) is registered with package array,
// and the vfs format "n5" (an attributes.json file, adapter n5:) for
// dataset detection. vfs.Limits.MaxDocument bounds attributes.json and
// vfs.Limits.MaxChunk a decoded block.
package n5adapter

import (
	"context"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// FormatN5 is the name of the format, as Node.Format reports it, and the
// adapter scheme.
const FormatN5 = "n5"

func init() {
	array.Register(format{})
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: FormatN5, OpenDir: array.AdapterOpen(FormatN5), Extensions: []string{".n5"}})
	vfs.RegisterFormat(&vfs.Format{Name: "n5", Adapter: "n5:", Input: vfs.KindDirectory, Dataset: true,
		MatchDir: array.HasFile("attributes.json")})
}

// format is the N5 array format.
type format struct{}

func (format) Name() string { return FormatN5 }

func (format) Describe(ctx context.Context, src *array.Source, name string) (*array.Node, error) {
	d := &describer{array.NewDescriber(ctx, src)}
	return d.n5(name)
}

// Describe describes the N5 node at name in the container t. lim may be
// nil (the defaults).
func Describe(ctx context.Context, t driver.Tree, name string, lim *vfs.Limits) (*array.Node, error) {
	return array.Describe(ctx, t, FormatN5, name, lim)
}
