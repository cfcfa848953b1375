package fusefs

import (
	"context"
	"io"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/pipefs/pipefs/vfs"
)

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
