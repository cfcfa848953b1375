// Package precomputedadapter registers the neuroglancer-precomputed:
// adapter of pipefs, which opens a neuroglancer precomputed volume:
//
//	https://h/vol/|neuroglancer-precomputed:
//
// Opening validates the info file and yields the volume's directory as
// stored (info, one directory per scale key). Stat(".").Sys() of the
// resulting FS is a *vfs.Origin whose Header is an *arraycore.Node: a group
// whose children are the scale keys. [Describe] with a scale key gives
// that scale as a 4-D array [channel, z, y, x] (raw encoding, unsharded).
//
// The format "neuroglancer precomputed" (an info file with a precomputed
// "@type", or a "type" and "scales") is registered for dataset detection.
package precomputedadapter

import (
	"context"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/arraycore"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "neuroglancer-precomputed", OpenDir: arraycore.AdapterOpen(arraycore.FormatPrecomputed)})
	vfs.RegisterFormat(&vfs.Format{Name: "neuroglancer precomputed", Adapter: "neuroglancer-precomputed:",
		Input: vfs.KindDirectory, Dataset: true, MatchDir: arraycore.MatchPrecomputed})
}

// Describe describes the precomputed volume in t (scale "" or ".") or one
// of its scales (a scale key) as an array. lim may be nil.
func Describe(ctx context.Context, t driver.Tree, scale string, lim *arraycore.Limits) (*arraycore.Node, error) {
	return arraycore.Describe(ctx, t, arraycore.FormatPrecomputed, scale, lim)
}
