// Package listfmt formats what a listing shows of an entry, the same way
// in "pipefs ls", "tree" and "stat" as in the pages of package browse: its
// name quoted for a terminal as GNU ls quotes it (Name, ShellQuote), its
// mode as ls writes it, the target of a symbolic link, and its size as
// "ls -h" writes it (HumanSize).
package listfmt

import (
	"io/fs"
	"strings"

	"github.com/pipefs/pipefs/vfs"
)

// Mode is the mode column of a listing: fs.FileMode.String, with "l" for
// a symbolic link as ls writes it (Go writes "L").
func Mode(m fs.FileMode) string {
	s := m.String()
	if m&fs.ModeSymlink != 0 {
		s = strings.Replace(s, "L", "l", 1)
	}
	return s
}

// LinkTarget returns, for display, the target of the symbolic link name
// of fsys that info describes, read with fs.ReadLink: "" when info
// describes no symbolic link, fsys is nil or the target cannot be read.
func LinkTarget(fsys *vfs.FS, name string, info fs.FileInfo) string {
	if fsys == nil || info.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	target, err := fs.ReadLink(fsys, name)
	if err != nil {
		return ""
	}
	return target
}
