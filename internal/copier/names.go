package copier

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/pipefs/pipefs/vfs"
)

// maxLocalName is the longest name of one path element that a copy writes:
// NAME_MAX of Linux and the BSDs, and the limit of most filesystems.
// Longer names would fail anyway, halfway through a tree.
const maxLocalName = 255

// checkLocalName returns an error, naming url, unless the slash-separated
// name is safe to create below a directory: relative, without ".." or
// empty elements, NUL or (on Windows) reserved names, and no element
// longer than maxLocalName bytes.
func checkLocalName(url, name string, quote func(string) string) error {
	why := ""
	switch {
	case strings.IndexByte(name, 0) >= 0:
		why = "it holds a NUL byte"
	case !filepath.IsLocal(filepath.FromSlash(name)) || !fs.ValidPath(name) || name == ".":
		why = "it is not a relative path inside the destination"
	default:
		for _, el := range strings.Split(name, "/") {
			if len(el) > maxLocalName {
				why = fmt.Sprintf("an element of it is %d bytes long, over the %d a local name can hold", len(el), maxLocalName)
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s: %w: the name %s is unsafe to write: %s", url, ErrRefused, quote(name), why)
}

// checkLink returns an error, naming url, unless the symbolic link name
// (a name in the tree copied) with the given target stays inside the copy: a relative target whose
// ".." elements all come first and climb no higher than the copy's top
// (a ".." after a name could climb out through a link).
func checkLink(url, name, target string, quote func(string) string) error {
	why := ""
	switch {
	case target == "":
		why = "its target is empty"
	case strings.IndexByte(target, 0) >= 0:
		why = "its target holds a NUL byte"
	case path.IsAbs(target) || filepath.IsAbs(target) || filepath.VolumeName(target) != "":
		why = "its target is absolute"
	default:
		depth := strings.Count(name, "/") // directories above the link
		named := false
		for _, el := range strings.Split(target, "/") {
			switch el {
			case "", ".":
			case "..":
				if named {
					why = `its target has ".." after a name`
				}
				depth--
			default:
				named = true
			}
			if depth < 0 {
				why = "its target leaves the copy"
			}
			if why != "" {
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s: %w: the symbolic link %s -> %s: %s", url, ErrRefused, quote(name), quote(target), why)
}

// kindOf names the type of a special file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "file of type " + m.Type().String()
}

// describeKind names the type of a local file for a message.
func describeKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	}
	return kindOf(m)
}

// TreeName is NAME, what a copy of the directory location of fsys is
// called inside an existing directory: the last element of its path, or
// for the root of a container (a.zip, opened by detection as
// a.zip|zip:) the container's name without the extensions that the
// adapters at its end stand for (a.tar.gz|gzip:|pipefs.tar: is "a").
func TreeName(p vfs.Pipeline) (string, error) {
	strip := 0
	for i := len(p) - 1; i >= 0; i-- {
		k := p[i].Key()
		if k == "." {
			if i > 0 {
				strip++
			}
			continue
		}
		name := path.Base(k)
		for ; strip > 0; strip-- {
			ext := path.Ext(name)
			if ext == "" || ext == name {
				break
			}
			name = strings.TrimSuffix(name, ext)
		}
		return name, nil
	}
	return "", fmt.Errorf("%s has no name to give its copy: name the destination, which must not exist", p)
}
