// Package fsname splits and joins fs.ValidPath names, as the archive
// adapters index them: by parent directory ("." at the top) and base.
// Unlike path.Split and path.Dir, it neither keeps a trailing slash nor
// cleans, and it does not allocate. Decompressed names the output of the
// stream adapters (gzip, zstd, xz, bzip2).
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

// decompressed holds, for each compression format, the suffixes of a
// compressed file's name and what each becomes, in the order they are
// tried.
var decompressed = map[string][]struct{ from, to string }{
	"gzip":  {{".tgz", ".tar"}, {".gz", ""}},
	"zstd":  {{".tzst", ".tar"}, {".zst", ""}, {".zstd", ""}},
	"xz":    {{".txz", ".tar"}, {".xz", ""}},
	"bzip2": {{".tbz2", ".tar"}, {".tbz", ".tar"}, {".bz2", ""}},
}

// Decompressed returns the name of the decompressed form of name, a file
// compressed with format ("gzip", "zstd", "xz" or "bzip2"): the format's
// suffix is removed, and the suffix of a compressed tar (".tgz", ".tzst",
// ".txz", ".tbz2", ".tbz") becomes ".tar". A suffix counts only when
// something is left before it; a name without one, or of another format,
// is returned as is. Suffixes are matched case-sensitively.
func Decompressed(format, name string) string {
	for _, s := range decompressed[format] {
		if len(name) > len(s.from) && strings.HasSuffix(name, s.from) {
			return name[:len(name)-len(s.from)] + s.to
		}
	}
	return name
}
