package arraycore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"

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
		key := u.Key()
		n, err := Describe(ctx, base, format, key, lim)
		if err == nil {
			return vfs.Location{Tree: n.Tree(), Path: "."}, nil
		}
		// A name inside a node (a chunk key, a metadata file): the
		// nearest node above it, validated, and the name in it.
		for dir := key; dir != "." && notNode(err); {
			dir = path.Dir(dir)
			parent, perr := Describe(ctx, base, format, dir, lim)
			if perr == nil {
				rel := strings.TrimPrefix(key, dir+"/")
				if dir == "." {
					rel = key
				}
				return vfs.Location{Tree: parent.Tree(), Path: rel}, nil
			}
			if !notNode(perr) {
				return vfs.Location{}, perr
			}
		}
		return vfs.Location{}, err
	}
}

// notNode reports an error saying that a name holds no node.
func notNode(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, vfs.ErrNotDir) || errors.Is(err, syscall.ENOTDIR)
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
