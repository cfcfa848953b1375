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
// *vfs.Origin whose Header is an *arraycore.Node, whose Array field (for
// arrays) reads chunks and boxes. See package arraycore for the
// description, the decoding and its limits, and [Describe] to describe a
// node of any tree directly.
//
// # Detection
//
// Two dataset formats are registered: "zarr v3" (a zarr.json file, adapter
// zarr3:) and "zarr v2" (.zarray, .zgroup or .zattrs, adapter zarr2:).
//
// # Options
//
// A *arraycore.Limits under the scheme in vfs.Options.Schemes bounds
// decoded chunk and metadata sizes.
package zarradapter

import (
	"context"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/arraycore"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "zarr", OpenDir: arraycore.AdapterOpen("zarr")})
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "zarr2", OpenDir: arraycore.AdapterOpen(arraycore.FormatZarr2)})
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "zarr3", OpenDir: arraycore.AdapterOpen(arraycore.FormatZarr3)})
	vfs.RegisterFormat(&vfs.Format{Name: "zarr v3", Adapter: "zarr3:", Input: vfs.KindDirectory, Dataset: true,
		MatchDir: arraycore.HasFile("zarr.json")})
	vfs.RegisterFormat(&vfs.Format{Name: "zarr v2", Adapter: "zarr2:", Input: vfs.KindDirectory, Dataset: true,
		MatchDir: arraycore.HasFile(".zarray", ".zgroup", ".zattrs")})
}

// Describe describes the Zarr node at name (a slash-separated path, "."
// for the root) of the hierarchy in t, of either version. lim may be nil.
func Describe(ctx context.Context, t driver.Tree, name string, lim *arraycore.Limits) (*arraycore.Node, error) {
	return arraycore.Describe(ctx, t, "zarr", name, lim)
}
