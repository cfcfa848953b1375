// Package precomputedadapter registers the neuroglancer-precomputed:
// adapter of pipefs, which opens a neuroglancer precomputed volume:
//
//	https://h/vol/|neuroglancer-precomputed:
//
// Opening validates the info file and yields the volume's directory as
// stored (info, one directory per scale key). Stat(".").Sys() of the
// resulting FS is a *vfs.Origin whose Header is an *array.Node: a group
// whose children are the scale keys. [Describe] with a scale key (or
// Node.Child, or "pipefs array --scale") gives that scale as an array.
//
// A scale ([x, y, z, channel] in Fortran order) is presented as the 4-D
// C-order array [channel, z, y, x], with chunks [channels, cz, cy, cx],
// stored under "x0-x1_y0-y1_z0-z1" keys (raw encoding, plain or .gz,
// unsharded); truncated edge chunks are padded with the fill value.
//
// The array format "neuroglancer-precomputed" ([FormatPrecomputed]) is
// registered with package array, and the vfs format "neuroglancer
// precomputed" (an info file with a precomputed "@type", or a "type" and
// "scales"; see [Match]) for dataset detection.
package precomputedadapter

import (
	"context"
	"encoding/json"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// FormatPrecomputed is the name of the format, as Node.Format reports it,
// and the adapter scheme.
const FormatPrecomputed = "neuroglancer-precomputed"

func init() {
	array.Register(format{})
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: FormatPrecomputed, OpenDir: array.AdapterOpen(FormatPrecomputed)})
	vfs.RegisterFormat(&vfs.Format{Name: "neuroglancer precomputed", Adapter: "neuroglancer-precomputed:",
		Input: vfs.KindDirectory, Dataset: true, MatchDir: Match})
}

// format is the precomputed array format.
type format struct{}

func (format) Name() string { return FormatPrecomputed }

func (format) Describe(ctx context.Context, src *array.Source, name string) (*array.Node, error) {
	d := &describer{array.NewDescriber(ctx, src)}
	return d.precomputed(name)
}

// Describe describes the precomputed volume in t (scale "" or ".") or one
// of its scales (a scale key) as an array. lim may be nil (the defaults).
func Describe(ctx context.Context, t driver.Tree, scale string, lim *vfs.Limits) (*array.Node, error) {
	return array.Describe(ctx, t, FormatPrecomputed, scale, lim)
}

// Match reports whether the directory t holds a precomputed volume: an
// info file (at most 16 MiB) that is a JSON object with an "@type" of
// neuroglancer_multiscale_volume, or a "type" and "scales".
func Match(ctx context.Context, t driver.Tree) (bool, error) {
	ok, err := array.HasFile("info")(ctx, t)
	if err != nil || !ok {
		return false, err
	}
	b, err := array.ReadFile(ctx, t, "info", 16<<20)
	if err != nil {
		return false, nil
	}
	var info struct {
		AtType string          `json:"@type"`
		Type   string          `json:"type"`
		Scales json.RawMessage `json:"scales"`
	}
	if json.Unmarshal(b, &info) != nil {
		return false, nil
	}
	return info.AtType == "neuroglancer_multiscale_volume" || info.Type != "" && len(info.Scales) > 0, nil
}
