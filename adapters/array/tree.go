package array

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"sync/atomic"
	"time"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// Tree returns the node's directory in its store as a driver.Tree, bytes
// untouched: metadata files, chunk keys and child nodes as stored. Its
// Stat(".") returns a FileInfo whose Sys() is n, so through a *vfs.FS,
// Stat(".").Sys() is a *vfs.Origin whose Header is n.
//
// A store that cannot list (an HTTP server) cannot Stat a directory
// either; the node's directory exists all the same, since its metadata was
// read, so Stat(".") then answers a directory without ModTime, and does
// not ask the store again.
func (n *Node) Tree() driver.Tree { return &nodeTree{Tree: n.store, n: n} }

// Store returns the node's directory in its store (Tree without the
// description).
func (n *Node) Store() driver.Tree { return n.store }

type nodeTree struct {
	driver.Tree
	n     *Node
	synth atomic.Bool // the store could not Stat the node's directory
}

func (t *nodeTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name != "." {
		return t.Tree.Stat(ctx, name)
	}
	if !t.synth.Load() {
		info, err := t.Tree.Stat(ctx, name)
		if err == nil {
			return &nodeInfo{info, t.n}, nil
		}
		if !notNode(err) && !errors.Is(err, errors.ErrUnsupported) {
			return nil, err
		}
		t.synth.Store(true)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &nodeInfo{&driver.FileInfo{FName: path.Base(t.n.Path), FMode: fs.ModeDir | 0o555}, t.n}, nil
}

// nodeInfo is the FileInfo of a node's directory: Sys is the *Node.
type nodeInfo struct {
	fs.FileInfo
	n *Node
}

func (i *nodeInfo) Sys() any { return i.n }

// NodeOf returns the *Node behind info, as Stat(".") of a store view
// returns it (directly or inside a *vfs.Origin), or nil.
func NodeOf(info fs.FileInfo) *Node {
	if info == nil {
		return nil
	}
	sys := info.Sys()
	if o, ok := sys.(*vfs.Origin); ok {
		sys = o.Header
	}
	switch s := sys.(type) {
	case *Node:
		return s
	case Noder:
		return s.ArrayNode()
	}
	return nil
}

// A Noder is the Sys value of a file that an adapter of another kind
// presents as an array (an HDF5 dataset, a decoded image): NodeOf finds
// the file's node through it, so that OpenNode, OpenArray and the CLI's
// array command read it like any array.
type Noder interface {
	// ArrayNode returns the file's node, an array bound with Bind, whose
	// Source is the receiver.
	ArrayNode() *Node
}

// Bind sets the limits that n and its array were described under, for a
// node that a Format's Describe did not return (see Noder). It returns n.
func Bind(n *Node, lim vfs.Limits) *Node {
	n.lim = lim
	if n.Array != nil {
		n.Array.limits = lim
	}
	return n
}

// FSTree adapts an fs.FS to a driver.Tree, for describing nodes of any
// fs.FS (a *vfs.FS included). Blobs are read whole on open.
func FSTree(fsys fs.FS) driver.Tree { return fsTree{fsys} }

type fsTree struct{ fsys fs.FS }

func (t fsTree) Stat(_ context.Context, name string) (fs.FileInfo, error) {
	return fs.Stat(t.fsys, name)
}

func (t fsTree) ReadDir(_ context.Context, name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(t.fsys, name)
}

func (t fsTree) OpenBlob(_ context.Context, name string) (driver.Blob, error) {
	info, err := fs.Stat(t.fsys, name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: driver.ErrIsDir}
	}
	b, err := fs.ReadFile(t.fsys, name)
	if err != nil {
		return nil, err
	}
	return driver.BytesBlob(b, &driver.FileInfo{FName: path.Base(name), FSize: int64(len(b)), FMode: 0o444, FModTime: time.Time{}}), nil
}
