package arraycore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pipefs/pipefs/vfs"
)

// AdapterOpen returns the Open function of the adapter for format (as
// Describe takes it: "zarr", FormatZarr2, ...). It describes the node the
// sub-URL's path names in the base directory and yields the node's
// directory (see Node.Tree). Options are read with
// vfs.SchemeOptions[*Limits](o, scheme).
func AdapterOpen(format string) func(ctx context.Context, in vfs.Location, u vfs.SubURL, o *vfs.Options) (vfs.Location, error) {
	return func(ctx context.Context, in vfs.Location, u vfs.SubURL, o *vfs.Options) (vfs.Location, error) {
		if in.Tree == nil {
			return vfs.Location{}, fmt.Errorf("%s: the base is not a directory: %w", u.Scheme, vfs.ErrNotDir)
		}
		base := in.Tree
		if in.Path != "" && in.Path != "." {
			base = vfs.SubTree(in.Tree, in.Path)
		}
		lim := vfs.SchemeOptions[*Limits](o, u.Scheme)
		n, err := Describe(ctx, base, format, u.Key(), lim)
		if err != nil {
			return vfs.Location{}, err
		}
		return vfs.Location{Tree: n.Tree(), Path: "."}, nil
	}
}

// HasFile returns a directory matcher that reports whether any of the
// named regular files exists in the directory.
func HasFile(names ...string) func(ctx context.Context, t vfs.Tree) (bool, error) {
	return func(ctx context.Context, t vfs.Tree) (bool, error) {
		for _, n := range names {
			ok, err := exists(ctx, t, n)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	}
}

// MatchPrecomputed reports whether the directory t holds a precomputed
// volume: an info file (at most 16 MiB) that is a JSON object with an
// "@type" of neuroglancer_multiscale_volume, or a "type" and "scales".
func MatchPrecomputed(ctx context.Context, t vfs.Tree) (bool, error) {
	ok, err := exists(ctx, t, "info")
	if err != nil || !ok {
		return false, err
	}
	b, err := readBlob(ctx, t, "info", 16<<20)
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
