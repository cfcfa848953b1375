package taradapter

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/vfs/driver"
)

var (
	_ driver.LinkReader = (*Archive)(nil)
	_ driver.Lstater    = (*Archive)(nil)
)

// ReadLink returns the target of the symbolic link name as its header
// holds it (Linkname), without following it; links in the parent
// directories are followed as Stat follows them. A hard link to a
// symbolic link is that symbolic link. A name that is no symbolic link is
// an error matching driver.ErrNotLink and fs.ErrInvalid.
func (a *Archive) ReadLink(ctx context.Context, name string) (string, error) {
	e, err := a.entryOf(ctx, "readlink", name)
	if err != nil {
		return "", err
	}
	if e == nil || e.kind != kindSymlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: driver.ErrNotLink}
	}
	if len(e.link) > driver.MaxLinkTarget {
		return "", &fs.PathError{Op: "readlink", Path: name,
			Err: driver.Corruptf("symbolic link target of %d bytes is longer than %d", len(e.link), driver.MaxLinkTarget)}
	}
	return e.link, nil
}

// Lstat describes the named entry as its directory lists it: a symbolic
// link is described, not followed. Sys returns the member's *tar.Header
// (for a hard link, its own header).
func (a *Archive) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	e, err := a.entryOf(ctx, "lstat", name)
	if err != nil {
		return nil, err
	}
	x, _ := a.index(ctx) // entryOf had it
	return x.named(e, baseName(name)), nil
}

// entryOf returns the entry of name itself (nil for the root), following
// symbolic links in its parent directories but not a final one.
func (a *Archive) entryOf(ctx context.Context, op, name string) (*entry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	x, err := a.index(ctx)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	if name == "." {
		return nil, nil
	}
	dir, base := fsname.Split(name)
	d, err := x.resolve(dir)
	if err == nil && d != nil && d.kind != kindDir {
		err = fmt.Errorf("%q is not a directory: %w", dir, fs.ErrNotExist)
	}
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: x.notFound(err)}
	}
	if d != nil {
		dir = fsname.Join(d.dir, d.base)
	}
	e := x.lookup(fsname.Join(dir, base))
	if e == nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: x.notFound(fs.ErrNotExist)}
	}
	return e, nil
}
