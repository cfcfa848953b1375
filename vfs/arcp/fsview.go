package arcp

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// FS returns an io/fs view of the containers registered with r, which
// uses ctx for I/O. Its root lists one directory per authority of each
// registered container, named as the authority is written in a URI
// ("uuid,2a47…", "ni,sha-256;…", "name,a.zip"); below it are the
// container's files, by their io/fs names: the file that
// arcp://name,a.zip/dir/f.txt names is "name,a.zip/dir/f.txt". The view
// follows the Resolver as containers come and go; a removed container's
// names fail with [ErrGone]. Files are *vfs.File values (a container's
// root renamed to its authority), and errors are *fs.PathError values
// whose path is the name given.
func (r *Resolver) FS(ctx context.Context) fs.FS { return &resolverFS{r: r, ctx: ctx} }

type resolverFS struct {
	r   *Resolver
	ctx context.Context
}

func (v *resolverFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &rootDir{v: v, ents: v.entries()}, nil
	}
	authority, rest, _ := strings.Cut(name, "/")
	e, err := v.r.lookup(authority)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if rest == "" {
		rest = "."
	}
	f, err := e.fsys.WithContext(v.ctx).OpenFile(rest)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrClosed) {
			err = errors.Join(ErrGone, err)
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if rest == "." {
		return &renamedFile{File: f, name: authority}, nil
	}
	return f, nil
}

// entries returns the root's entries: one per registered authority,
// sorted by name.
func (v *resolverFS) entries() []fs.DirEntry {
	r := v.r
	r.mu.RLock()
	var ents []fs.DirEntry
	for k, l := range r.live {
		for _, a := range l[0].id.Authorities() {
			if AuthorityKey(a) == k {
				ents = append(ents, &rootEntry{name: a, fsys: l[0].fsys.WithContext(v.ctx)})
				break
			}
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents
}

// A renamedFile is the root directory of a container, named after an
// authority.
type renamedFile struct {
	*vfs.File
	name string
}

func (f *renamedFile) Stat() (fs.FileInfo, error) {
	info, err := f.File.Stat()
	if err != nil {
		return nil, err
	}
	return renamedInfo{info, f.name}, nil
}

type renamedInfo struct {
	fs.FileInfo
	name string
}

func (i renamedInfo) Name() string   { return i.name }
func (i renamedInfo) String() string { return fs.FormatFileInfo(i) }

// A rootEntry is the entry of one authority in the root.
type rootEntry struct {
	name string
	fsys *vfs.FS
}

func (e *rootEntry) Name() string      { return e.name }
func (e *rootEntry) IsDir() bool       { return true }
func (e *rootEntry) Type() fs.FileMode { return fs.ModeDir }
func (e *rootEntry) String() string    { return fs.FormatDirEntry(e) }

func (e *rootEntry) Info() (fs.FileInfo, error) {
	info, err := e.fsys.Stat(".")
	if err != nil {
		return nil, err
	}
	return renamedInfo{info, e.name}, nil
}

// rootDir is the opened root of the view.
type rootDir struct {
	v    *resolverFS
	ents []fs.DirEntry
	off  int
}

func (d *rootDir) Stat() (fs.FileInfo, error) { return rootInfo{}, nil }
func (d *rootDir) Close() error               { return nil }

func (d *rootDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: vfs.ErrIsDir}
}

func (d *rootDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(n, len(rest))]
	}
	d.off += len(rest)
	return slices.Clone(rest), nil
}

type rootInfo struct{}

func (rootInfo) Name() string       { return "." }
func (rootInfo) Size() int64        { return 0 }
func (rootInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (rootInfo) ModTime() time.Time { return time.Time{} }
func (rootInfo) IsDir() bool        { return true }
func (rootInfo) Sys() any           { return nil }
