// Package nodedesc gives the one-line label of a directory that holds
// the node of an array or group ("zarr3 array int16 [4]",
// "neuroglancer-precomputed volume (3 scales)") that listings show, from
// the node's own Label (array.Node.Label); package describe renders the
// node's whole description.
package nodedesc

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// Label describes, for a listing, the node that directory name of fsys
// holds, if it holds one: "zarr3 array int16 [4]", "zarr2 group", "n5
// array uint16 [4 5]", "neuroglancer-precomputed volume (3 scales)", or
// "zarr2 (invalid: ...)" when its metadata does not describe. ok is false
// for directories that hold no node.
//
// The directory's format is the one the dataset formats of reg detect
// (Registry.DetectDir), as opening the directory would detect it; that
// format then describes the node from its own metadata, without listing
// its children. ents, the directory's listing, answers whether a file
// exists in it, so a directory without metadata costs no request.
func Label(ctx context.Context, reg *vfs.Registry, fsys fs.FS, name string, ents []fs.DirEntry) (label string, ok bool) {
	t := driver.SubTree(array.FSTree(fsys), name)
	if ents != nil {
		t = &ListedTree{Tree: t, Entries: ents}
	}
	u, ok, err := reg.DetectDir(ctx, t, true)
	if err != nil || !ok {
		return "", false
	}
	format := u.Scheme
	src := &array.Source{Tree: t, Registry: reg}
	n, err := src.Describe(ctx, format, ".")
	if err != nil {
		return fmt.Sprintf("%s (invalid: %v)", format, err), true
	}
	return n.Label(), true
}

// A ListedTree is a directory whose listing is known: a name missing from
// the listing does not exist, without asking the tree. Format detection
// over it (vfs.Registry.DetectDir) costs no request for the metadata
// files that a directory does not hold.
type ListedTree struct {
	driver.Tree
	Entries []fs.DirEntry // the directory's listing
}

func (t *ListedTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name != "." && !strings.Contains(name, "/") && !slices.ContainsFunc(t.Entries, func(e fs.DirEntry) bool { return e.Name() == name }) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return t.Tree.Stat(ctx, name)
}

func (t *ListedTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if _, err := t.Stat(ctx, name); err != nil {
		return nil, err
	}
	return t.Tree.OpenBlob(ctx, name)
}
