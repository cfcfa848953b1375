package array

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// AdapterOpen returns the OpenDir function of the adapter for the format
// called format (as Describe takes it) among the array formats of the
// pipeline's registry (vfs.Options.Registry, see RegisterIn). It describes
// the node the sub-URL's path names in the base directory, listing a
// group's children, and yields the node's directory (see Node.Tree),
// within env.Limits (MaxDocument and MaxChunk). A path inside a node (a
// chunk key, a metadata file) yields that name in the nearest node above
// it.
func AdapterOpen(format string) func(ctx context.Context, base driver.Tree, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	return func(ctx context.Context, base driver.Tree, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		src := &Source{Tree: base, Limits: env.Limits, Children: true}
		if env.Options != nil {
			src.Registry = env.Options.Registry
		}
		key := u.Key()
		n, err := src.Describe(ctx, format, key)
		if err == nil {
			return driver.Location{Tree: n.Tree(), Path: "."}, nil
		}
		// A name inside a node (a chunk key, a metadata file): the
		// nearest node above it, validated, and the name in it.
		for dir := key; dir != "." && notNode(err); {
			dir = path.Dir(dir)
			parent, perr := src.Describe(ctx, format, dir)
			if perr == nil {
				rel := strings.TrimPrefix(key, dir+"/")
				if dir == "." {
					rel = key
				}
				return driver.Location{Tree: parent.Tree(), Path: rel}, nil
			}
			if !notNode(perr) {
				return driver.Location{}, perr
			}
		}
		return driver.Location{}, err
	}
}

// notNode reports an error saying that a name holds no node.
func notNode(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, driver.ErrNotDir) || errors.Is(err, syscall.ENOTDIR)
}

// HasFile returns a directory matcher that reports whether any of the
// named regular files exists in the directory.
func HasFile(names ...string) func(ctx context.Context, t driver.Tree) (bool, error) {
	return func(ctx context.Context, t driver.Tree) (bool, error) {
		for _, n := range names {
			ok, err := exists(ctx, t, n)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	}
}
