package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/pipefs/pipefs/vfs/driver"
)

var _ fs.ReadLinkFS = (*FS)(nil)

// ErrNotLink: ReadLink of a name that is not a symbolic link. It matches
// fs.ErrInvalid too, as os.Readlink's EINVAL does.
var ErrNotLink = driver.ErrNotLink

// ReadLink returns the target of the symbolic link name, as its container
// stores it: a tar member's link name, the bytes of a zip member, what a
// local link holds, an HDF5 soft link's path ("FILE:PATH" for an external
// link). The target is neither cleaned nor followed; it may be absolute or
// lead nowhere. Links in the parent directories of name are followed as
// Stat follows them.
//
// A name that is no symbolic link is an error matching ErrNotLink and
// fs.ErrInvalid; a missing name, fs.ErrNotExist; a target longer than
// driver.MaxLinkTarget bytes, ErrCorrupt; a link of a tree that cannot
// read targets, errors.ErrUnsupported. Errors are *fs.PathError values
// naming the sub-URL. With FS, fs.ReadLink works on any pipeline.
func (f *FS) ReadLink(name string) (string, error) {
	if err := f.check("readlink", name); err != nil {
		return "", err
	}
	full := f.full(name)
	if lr, ok := f.tree.(driver.LinkReader); ok {
		target, err := lr.ReadLink(f.ctx, full)
		if err == nil && len(target) > driver.MaxLinkTarget {
			// The driver's bound, kept for a driver that forgets it.
			err = driver.Corruptf("symbolic link target of %d bytes is longer than %d", len(target), driver.MaxLinkTarget)
		}
		if err != nil {
			return "", f.fail("readlink", name, err)
		}
		return target, nil
	}
	info, err := f.lstat(full)
	switch {
	case err != nil:
	case info.Mode()&fs.ModeSymlink == 0:
		err = ErrNotLink
	default:
		err = fmt.Errorf("this tree (%T) does not read the targets of its symbolic links: %w", f.tree, errors.ErrUnsupported)
	}
	return "", f.fail("readlink", name, err)
}

// Lstat describes the named file or directory without following it when
// it is a symbolic link: the entry as its directory lists it. Links in
// the parent directories of name are followed. For a name that is no
// link it is Stat. Its Sys method returns an *Origin. With FS, fs.Lstat
// works on any pipeline.
func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.check("lstat", name); err != nil {
		return nil, err
	}
	info, err := f.lstat(f.full(name))
	if err != nil {
		return nil, f.fail("lstat", name, err)
	}
	return wrapInfo(info, name, f.URL(name)), nil
}

// lstat describes full, a name in the tree, without following a final
// link: with the tree's Lstat, else from the listing of its directory.
func (f *FS) lstat(full string) (fs.FileInfo, error) {
	if ls, ok := f.tree.(driver.Lstater); ok {
		return ls.Lstat(f.ctx, full)
	}
	if full == "." {
		return f.tree.Stat(f.ctx, full)
	}
	dir, base := path.Dir(full), path.Base(full)
	ents, err := f.tree.ReadDir(f.ctx, dir)
	if errors.Is(err, driver.ErrNotDir) {
		err = fmt.Errorf("%s is not a directory: %w", dir, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.Name() == base {
			return e.Info()
		}
	}
	return nil, fs.ErrNotExist
}
