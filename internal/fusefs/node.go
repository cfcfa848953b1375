package fusefs

import (
	"context"
	"io"
	iofs "io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/pipefs/pipefs/vfs"
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

// Open opens regular file n for reading, with a *vfs.File of its own.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&syscall.O_TRUNC != 0 {
		return nil, 0, syscall.EROFS
	}
	f, err := n.t.fsys.OpenFile(n.name)
	if err != nil {
		return nil, 0, n.t.fail("open", n.name, err)
	}
	return &handle{f: f, n: n}, fuse.FOPEN_KEEP_CACHE, 0
}

// A handle is an open regular file.
type handle struct {
	f *vfs.File
	n *node
}

var (
	_ fs.FileReader   = (*handle)(nil)
	_ fs.FileReleaser = (*handle)(nil)
)

// Read reads at off, with ReadAt.
func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	k, err := h.f.ReadAt(dest, off)
	if err != nil && err != io.EOF {
		return nil, h.n.t.fail("read", h.n.name, err)
	}
	return fuse.ReadResultData(dest[:k]), 0
}

// Release closes the file.
func (h *handle) Release(ctx context.Context) syscall.Errno {
	h.f.Close()
	return 0
}

// Readlink returns the target of symbolic link n.
func (n *node) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	target, err := n.t.readLink(n.name, n.info)
	if err != nil {
		return nil, n.t.fail("readlink", n.name, err)
	}
	return []byte(target), 0
}

// Every change fails with EROFS.

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EROFS
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (n *node) Mknod(ctx context.Context, name string, mode, dev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno { return syscall.EROFS }

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno { return syscall.EROFS }

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	return syscall.EROFS
}

func (n *node) Tmpfile(ctx context.Context, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EROFS
}

func (n *node) Setxattr(ctx context.Context, attr string, data []byte, flags uint32) syscall.Errno {
	return syscall.EROFS
}

func (n *node) Removexattr(ctx context.Context, attr string) syscall.Errno { return syscall.EROFS }

func (n *node) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	return 0, syscall.EROFS
}

func (n *node) Allocate(ctx context.Context, f fs.FileHandle, off, size uint64, mode uint32) syscall.Errno {
	return syscall.EROFS
}

// Fsync has nothing to write back.
func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno { return 0 }
