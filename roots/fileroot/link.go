package fileroot

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	"github.com/pipefs/pipefs/vfs/driver"
)

var (
	_ driver.LinkReader = (*Tree)(nil)
	_ driver.Lstater    = (*Tree)(nil)
)

// ReadLink returns the target of the symbolic link name with
// os.Root.Readlink: what the link holds, which may lead outside the
// directory (it is read, not followed). A name that is no symbolic link
// is an error matching driver.ErrNotLink and fs.ErrInvalid, as EINVAL is.
func (t *Tree) ReadLink(ctx context.Context, name string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	target, err := t.root.Readlink(name)
	if errors.Is(err, syscall.EINVAL) {
		return "", driver.ErrNotLink
	}
	if err != nil {
		return "", mapErr(err)
	}
	if len(target) > driver.MaxLinkTarget {
		return "", driver.Corruptf("symbolic link target of %d bytes is longer than %d", len(target), driver.MaxLinkTarget)
	}
	return target, nil
}

// Lstat describes name with os.Root.Lstat: a symbolic link is described,
// not followed.
func (t *Tree) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info, err := t.root.Lstat(name)
	if err != nil {
		return nil, mapErr(err)
	}
	return info, nil
}
