// Package fsname splits and joins fs.ValidPath names, as the archive
// adapters index them: by parent directory ("." at the top) and base.
// Unlike path.Split and path.Dir, it neither keeps a trailing slash nor
// cleans, and it does not allocate.
package fsname

import (
	"io/fs"
	"strings"
)

// Split splits name, an fs.ValidPath name other than ".", into its parent
// directory ("." for a top-level name) and its last element.
func Split(name string) (dir, base string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return ".", name
}

// Parent returns the parent directory of name, "." for a top-level name.
func Parent(name string) string {
	dir, _ := Split(name)
	return dir
}

// Join is the inverse of Split: base inside dir, where dir "." is the top.
func Join(dir, base string) string {
	if dir == "." {
		return base
	}
	return dir + "/" + base
}

// ValidBase reports whether s is one valid io/fs name element: not empty,
// no "/", not "." or "..". Listings of object stores keep only such names.
func ValidBase(s string) bool {
	return s != "." && !strings.Contains(s, "/") && fs.ValidPath(s)
}
