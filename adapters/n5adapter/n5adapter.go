// Package n5adapter registers the n5: adapter of pipefs, which opens an
// N5 group or dataset inside a directory:
//
//	file:/d/c.n5/|n5:volumes/raw
//
// Opening validates the node's attributes.json and yields the node's
// directory as stored (attributes.json, the block tree, child nodes). The
// typed description is Stat(".").Sys() of the resulting FS: a *vfs.Origin
// whose Header is an *arraycore.Node. N5 axes are presented reversed, in C
// order (shape = reverse(dimensions)), as zarr-python did; see package
// arraycore.
//
// The format "n5" (an attributes.json file, adapter n5:) is registered for
// dataset detection. A *arraycore.Limits under "n5" in
// vfs.Options.Schemes bounds decoded sizes.
package n5adapter

import (
	"context"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/arraycore"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "n5", OpenDir: arraycore.AdapterOpen(arraycore.FormatN5)})
	vfs.RegisterFormat(&vfs.Format{Name: "n5", Adapter: "n5:", Input: vfs.KindDirectory, Dataset: true,
		MatchDir: arraycore.HasFile("attributes.json")})
}

// Describe describes the N5 node at name in the container t. lim may be
// nil.
func Describe(ctx context.Context, t driver.Tree, name string, lim *arraycore.Limits) (*arraycore.Node, error) {
	return arraycore.Describe(ctx, t, arraycore.FormatN5, name, lim)
}
