package fusefs

import (
	"context"
	iofs "io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// A node is a file, directory, link or special file of the tree. Its
// description does not change; a directory lists its children once.
type node struct {
	fs.Inode
	t    *tree
	name string        // the fs name in t.fsys, "." for the root
	info iofs.FileInfo // as lstat describes it
	attr fuse.Attr
	up   uint64 // the inode number of the parent directory

	list listing // directories
}

var (
	_ fs.NodeGetattrer     = (*node)(nil)
	_ fs.NodeLookuper      = (*node)(nil)
	_ fs.NodeReaddirer     = (*node)(nil)
	_ fs.NodeOpener        = (*node)(nil)
	_ fs.NodeReadlinker    = (*node)(nil)
	_ fs.NodeSetattrer     = (*node)(nil)
	_ fs.NodeCreater       = (*node)(nil)
	_ fs.NodeMkdirer       = (*node)(nil)
	_ fs.NodeMknoder       = (*node)(nil)
	_ fs.NodeLinker        = (*node)(nil)
	_ fs.NodeSymlinker     = (*node)(nil)
	_ fs.NodeUnlinker      = (*node)(nil)
	_ fs.NodeRmdirer       = (*node)(nil)
	_ fs.NodeRenamer       = (*node)(nil)
	_ fs.NodeTmpfiler      = (*node)(nil)
	_ fs.NodeSetxattrer    = (*node)(nil)
	_ fs.NodeRemovexattrer = (*node)(nil)
	_ fs.NodeWriter        = (*node)(nil)
	_ fs.NodeAllocater     = (*node)(nil)
	_ fs.NodeFsyncer       = (*node)(nil)
)

func (t *tree) newNode(name string, info iofs.FileInfo, ino, up uint64) *node {
	return &node{t: t, name: name, info: info, attr: t.attrOf(info, ino), up: up}
}

// child returns the fs name of the entry base of n.
func (n *node) child(base string) string {
	if n.name == "." {
		return base
	}
	return n.name + "/" + base
}

// Getattr describes the node.
func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Attr = n.attr
	return 0
}

// A listing is the list of a directory's children, made once.
type listing struct {
	mu   sync.Mutex
	call *listCall // the listing under way or made; nil before the first
}

// A listCall is one listing of a directory.
type listCall struct {
	done chan struct{} // closed when kids and err are set
	kids []*kid        // sorted by name
	err  error
}

// A kid is a child of a directory: its node, and the inode go-fuse knows
// it by, made at its first lookup.
type kid struct {
	name  string
	node  *node
	once  sync.Once
	inode *fs.Inode
}

// children returns the children of directory n, listing it if no listing
// has succeeded yet. The listing runs with the FS's context, for every
// caller; a caller whose ctx ends first gets its error.
func (n *node) children(ctx context.Context) ([]*kid, syscall.Errno) {
	n.list.mu.Lock()
	c := n.list.call
	if c != nil {
		select {
		case <-c.done:
			if c.err != nil {
				c = nil // failed: list again
			}
		default:
		}
	}
	if c == nil {
		c = &listCall{done: make(chan struct{})}
		n.list.call = c
		go func() {
			c.kids, c.err = n.readDir()
			close(c.done)
		}()
	}
	n.list.mu.Unlock()
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, syscall.EINTR
	}
	if c.err != nil {
		return nil, n.t.fail("readdir", n.name, c.err)
	}
	return c.kids, 0
}

// readDir lists directory n and makes the nodes of its children.
func (n *node) readDir() ([]*kid, error) {
	ents, err := n.t.fsys.ReadDir(n.name)
	if err != nil {
		return nil, err
	}
	kids := make([]*kid, 0, len(ents))
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			return nil, err
		}
		name := n.child(e.Name())
		kids = append(kids, &kid{name: e.Name(), node: n.t.newNode(name, info, n.t.ino(name), n.attr.Ino)})
	}
	// ReadDir sorts by name; sort anyway, since Lookup searches.
	slices.SortFunc(kids, func(a, b *kid) int { return strings.Compare(a.name, b.name) })
	return kids, nil
}

// Lookup finds the child name of directory n.
func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	kids, errno := n.children(ctx)
	if errno != 0 {
		return nil, errno
	}
	i, ok := slices.BinarySearchFunc(kids, name, func(k *kid, name string) int { return strings.Compare(k.name, name) })
	if !ok {
		return nil, syscall.ENOENT
	}
	k := kids[i]
	k.once.Do(func() {
		k.inode = n.NewPersistentInode(ctx, k.node, fs.StableAttr{Mode: k.node.attr.Mode & syscall.S_IFMT, Ino: k.node.attr.Ino})
	})
	out.Attr = k.node.attr
	return k.inode, 0
}

// Readdir lists directory n: ".", "..", then its children.
func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	kids, errno := n.children(ctx)
	if errno != 0 {
		return nil, errno
	}
	ents := make([]fuse.DirEntry, 0, 2+len(kids))
	ents = append(ents,
		fuse.DirEntry{Name: ".", Mode: syscall.S_IFDIR, Ino: n.attr.Ino},
		fuse.DirEntry{Name: "..", Mode: syscall.S_IFDIR, Ino: n.up})
	for _, k := range kids {
		ents = append(ents, fuse.DirEntry{Name: k.name, Mode: k.node.attr.Mode, Ino: k.node.attr.Ino})
	}
	return fs.NewListDirStream(ents), 0
}

// Readlink returns the target of symbolic link n, as fs.ReadLink reads
// it from the FS.
func (n *node) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	target, err := n.t.fsys.ReadLink(n.name)
	if err != nil {
		return nil, n.t.fail("readlink", n.name, err)
	}
	return []byte(target), 0
}
