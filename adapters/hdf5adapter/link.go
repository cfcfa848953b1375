package hdf5adapter

import (
	"context"
	"io/fs"
	"slices"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/vfs/driver"
)

var (
	_ driver.LinkReader = (*tree)(nil)
	_ driver.Lstater    = (*tree)(nil)
)

// ReadLink returns the target of a link that the tree lists as a
// symbolic link: the path a soft link holds (a dangling one, or one back
// up to an ancestor group), "FILE:PATH" for an external link, and the
// path of the group a hard link back up the tree leads to. A link listed
// as its target (a soft link that resolves below) is no symbolic link:
// its ReadLink, like any group's or dataset's, is an error matching
// driver.ErrNotLink.
func (t *tree) ReadLink(ctx context.Context, name string) (string, error) {
	k, fi, err := t.entryOf(ctx, name)
	if err != nil {
		return "", err
	}
	if fi == nil || fi.FMode&fs.ModeSymlink == 0 {
		return "", driver.ErrNotLink
	}
	var target string
	switch {
	case k.typ == linkSoft:
		target = k.target
	case k.typ == linkExternal:
		target = k.file + ":" + k.target
	default:
		c, ok := fi.FSys.(*CycleLink)
		if !ok {
			return "", driver.ErrNotLink
		}
		target = c.Path
	}
	if len(target) > driver.MaxLinkTarget {
		return "", driver.Corruptf("link target of %d bytes is longer than %d", len(target), driver.MaxLinkTarget)
	}
	return target, nil
}

// Lstat describes the named link as its group lists it: a symbolic link
// (an external, dangling or cyclic link) or an unreadable object is
// described, not followed; a group or dataset is described as Stat does.
func (t *tree) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	_, fi, err := t.entryOf(ctx, name)
	if err != nil {
		return nil, err
	}
	if fi == nil || fi.FMode&(fs.ModeSymlink|fs.ModeIrregular) == 0 {
		return t.Stat(ctx, name)
	}
	return fi, nil
}

// entryOf returns the link name is in its group and its listing entry;
// both are nil for the root.
func (t *tree) entryOf(ctx context.Context, name string) (*link, *driver.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, nil, fs.ErrInvalid
	}
	if name == "." {
		return nil, nil, nil
	}
	dir, base := fsname.Split(name)
	tg, err := t.resolve(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	if tg.kind != kindGroup || !t.validName(base) {
		return nil, nil, fs.ErrNotExist
	}
	ls, err := t.f.groupLinks(ctx, tg.addr)
	if err != nil {
		return nil, nil, err
	}
	k := ls.find(base)
	if k == nil {
		return nil, nil, fs.ErrNotExist
	}
	fi, err := t.entry(ctx, tg, k, append(slices.Clip(tg.chain), tg.addr))
	if err != nil {
		return nil, nil, err
	}
	if fi == nil {
		return nil, nil, fs.ErrNotExist
	}
	return k, fi, nil
}
