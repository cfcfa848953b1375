package main

import (
	"context"
	"io/fs"
	"net/url"
	"strings"

	"github.com/pipefs/pipefs/vfs"
)

// linkTarget returns, for display, the target of the symbolic link name
// of fsys that info describes, read with fs.ReadLink: "" when info
// describes no symbolic link, fsys is nil or the target cannot be read.
func linkTarget(fsys *vfs.FS, name string, info fs.FileInfo) string {
	if fsys == nil || info.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	target, err := fs.ReadLink(fsys, name)
	if err != nil {
		return ""
	}
	return target
}

// openParent opens the directory that holds what pipeline names, which
// must be an entry of a tree stage ("…|tar:a/b") or a path of a root whose
// trees hold links that opening follows (a local path, see
// vfs.Root.FollowsLinks), and returns it with the entry's name in it. It
// returns nil when pipeline names no such entry (a root, a directory, a
// query) or the directory cannot be opened. The caller closes the FS.
func (g *globals) openParent(ctx context.Context, pipeline string) (*vfs.FS, string) {
	p, err := vfs.Parse(pipeline)
	if err != nil || len(p) < 2 && !registry(g.options()).FollowsLinks(p) {
		return nil, "" // a remote root's parent is no directory to list, nor has a link to describe
	}
	last := p[len(p)-1]
	if last.IsDir() || last.HasQuery {
		return nil, ""
	}
	i := strings.LastIndexByte(last.Path, '/')
	base, err := url.PathUnescape(last.Path[i+1:])
	if err != nil || !fs.ValidPath(base) || strings.Contains(base, "/") || base == "." {
		return nil, ""
	}
	last.Path = last.Path[:i+1]
	fsys, err := vfs.OpenFS(ctx, p[:len(p)-1].Append(last).String(), g.options())
	if err != nil {
		return nil, ""
	}
	return fsys, base
}
