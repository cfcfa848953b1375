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
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: FormatPrecomputed, OpenDir: openDir})
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
