package fusefs

import (
	"archive/tar"
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/pipefs/pipefs/vfs"
)

// maxLink is the longest target a symbolic link may have: PATH_MAX.
const maxLink = 4096

// maxHops bounds the hard links to follow to a symbolic link, as the tar
// adapter bounds the links it follows.
const maxHops = 40

// readLink returns the target of the symbolic link name, which info
// describes as lstat would: from fs.ReadLinkFS when the FS implements it,
// else from the entry's tar or zip header.
func (t *tree) readLink(name string, info fs.FileInfo) (string, error) {
	if rl, ok := any(t.fsys).(fs.ReadLinkFS); ok {
		return rl.ReadLink(name)
	}
	for range maxHops {
		var header any
		if o, ok := info.Sys().(*vfs.Origin); ok {
			header = o.Header
		}
		switch h := header.(type) {
		case *tar.Header:
			if h.Typeflag != tar.TypeLink {
				return h.Linkname, nil
			}
			// A hard link to a symbolic link is that link.
			var err error
			if info, err = t.lstat(tarName(h.Linkname)); err != nil {
				return "", err
			}
			continue
		case *zip.FileHeader:
			return t.zipLink(h)
		}
		return "", fmt.Errorf("symbolic link %s: no tar or zip header holds its target (header %T)", name, header)
	}
	return "", fmt.Errorf("symbolic link %s: more than %d hard links to follow: %w", name, maxHops, vfs.ErrCorrupt)
}

// tarName returns the fs name of a name in a tar header, as the tar
// adapter cleans it: without leading "./" and a trailing "/".
func tarName(name string) string {
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	name = strings.TrimSuffix(name, "/")
	if name == "" {
		return "."
	}
	return name
}

// lstat describes name as its directory lists it, without following a
// link.
func (t *tree) lstat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
	}
	ents, err := t.fsys.ReadDir(path.Dir(name))
	if err != nil {
		return nil, err
	}
	base := path.Base(name)
	for _, e := range ents {
		if e.Name() == base {
			return e.Info()
		}
	}
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
}

// zipLink reads the target of a symbolic link in a zip archive, the bytes
// of its member, through the archive/zip reader of the archive.
func (t *tree) zipLink(h *zip.FileHeader) (string, error) {
	t.zipOnce.Do(func() {
		var zr *zip.Reader
		if !t.fsys.As(&zr) {
			t.zipErr = errors.New("the archive/zip reader of the archive is not reachable")
			return
		}
		t.zipFiles = make(map[string]*zip.File, len(zr.File))
		for _, f := range zr.File {
			t.zipFiles[f.Name] = f // the last of a name wins, as in the tree
		}
	})
	if t.zipErr != nil {
		return "", fmt.Errorf("symbolic link %s: %w", h.Name, t.zipErr)
	}
	f := t.zipFiles[h.Name]
	if f == nil {
		return "", fmt.Errorf("symbolic link %s: not in the archive's directory: %w", h.Name, fs.ErrNotExist)
	}
	rc, err := f.Open()
	if err != nil {
		return "", fmt.Errorf("symbolic link %s: %w", h.Name, err)
	}
	defer rc.Close()
	target, err := io.ReadAll(io.LimitReader(rc, maxLink+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("symbolic link %s: %w", h.Name, err)
	case len(target) > maxLink:
		return "", fmt.Errorf("symbolic link %s: target longer than %d bytes: %w", h.Name, maxLink, syscall.ENAMETOOLONG)
	}
	return string(target), nil
}
