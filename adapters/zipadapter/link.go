package zipadapter

import (
	"context"
	"io"
	"io/fs"

	"github.com/pipefs/pipefs/vfs/driver"
)

var (
	_ driver.LinkReader = (*Archive)(nil)
	_ driver.Lstater    = (*Archive)(nil)
)

// ReadLink returns the target of the symbolic link name: the bytes of its
// member, as Info-ZIP stores them, decompressed and checked against their
// CRC-32. A target is a path: a member declaring more than
// driver.MaxLinkTarget bytes is an error matching driver.ErrCorrupt,
// refused before it is read. A name that is no symbolic link is an error
// matching driver.ErrNotLink and fs.ErrInvalid. Links are never followed,
// not even in parent directories, as Stat does not follow them.
func (a *Archive) ReadLink(ctx context.Context, name string) (string, error) {
	fail := func(err error) (string, error) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	if !fs.ValidPath(name) {
		return fail(fs.ErrInvalid)
	}
	if name == "." {
		return fail(driver.ErrNotLink)
	}
	e := a.lookup(name)
	if e == nil {
		return fail(fs.ErrNotExist)
	}
	fi := &fileInfo{a, e}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return fail(driver.ErrNotLink)
	}
	if n := a.header(e.rec).usize; n > driver.MaxLinkTarget {
		return fail(driver.Corruptf("symbolic link target of %d bytes is longer than %d", n, driver.MaxLinkTarget))
	}
	b, err := a.openData(ctx, name, e, fi)
	if err != nil {
		return fail(err)
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	target, err := io.ReadAll(io.NewSectionReader(driver.ReaderAt(ctx, b), 0, driver.MaxLinkTarget+1))
	switch {
	case err != nil:
		return fail(err)
	case len(target) > driver.MaxLinkTarget:
		return fail(driver.Corruptf("symbolic link target is longer than %d bytes", driver.MaxLinkTarget))
	}
	return string(target), nil
}

// Lstat is Stat, which describes a symbolic link and does not follow it.
func (a *Archive) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	return a.Stat(ctx, name)
}
