package deep

import (
	"errors"
	"io/fs"
	"path"

	"github.com/pipefs/pipefs/vfs"
)

// WalkDirFunc is the type of the function WalkDir calls for each file,
// directory and container it visits. It is fs.WalkDirFunc with an *Entry,
// which tells the FS the entry is listed from and, for a container, the
// directory it holds.
//
// path is the entry's path from root, through the containers:
// "inner.zip/notes/a.txt". err reports a problem with the entry: a
// directory that could not be read (fn is then called a second time for
// it, as fs.WalkDir does), an entry whose FileInfo failed, or a container
// file that did not open; such a container is walked as a file. What fn
// returns is as for fs.WalkDirFunc: fs.SkipDir on a directory or a
// container skips its contents, on a file the rest of its directory;
// fs.SkipAll ends the walk; any other error ends it and WalkDir returns
// it.
type WalkDirFunc func(path string, d *Entry, err error) error

// WalkDir walks the file tree of fsys rooted at directory root as
// fs.WalkDir does, and walks the container files it meets (a zip in a
// zip, a tar.gz, an HDF5 file, a compressed file as a folder of one file)
// as the directories they hold, to opt.Depth containers deep.
//
// Order. fn is called for root first, with an Entry whose Info stats it,
// then for each entry in lexical order, a directory's or a container's
// entries right after it: the order of fs.WalkDir, from one goroutine.
//
// Containers. Only a regular file whose first bytes look like a
// container (vfs.Registry.SniffHead) is opened, relative to the FS it is
// in ((*vfs.FS).OpenFS): a nested container costs no request beyond the
// bytes it needs, and never reopens the pipeline above it. A plain file
// costs the read of its head. The files of an HDF5 file, and those below
// the arrays and groups of Zarr, N5 and precomputed datasets, are
// datasets and chunks: they are never read. Up to opt.Concurrency
// containers are opened at once, ahead of the entry fn is at.
//
// Closing. The walk owns each nested FS: it is valid while fn is called
// for the container and for the entries inside it, and closed once they
// are walked, after opt.BeforeClose. fn must not keep it.
//
// Errors. I/O uses fsys's context ((*vfs.FS).WithContext); once it is
// done, WalkDir returns its error. Errors passed to fn match their cause
// with errors.Is (vfs.ErrCorrupt, fs.ErrNotExist, ...). Damage that a
// container reports about itself, entries it left out of its listing
// (driver.Omitter), is not an error of the walk: ask the nested FS in
// opt.BeforeClose, and the root's after WalkDir, as pipefs ls does.
func WalkDir(fsys *vfs.FS, root string, opt *Options, fn WalkDirFunc) error {
	wk := &walk{w: NewWalker(opt), fn: fn}
	if opt != nil {
		wk.beforeClose = opt.BeforeClose
	}
	d := &Entry{DirEntry: rootEntry{fsys: fsys, name: root}, FS: fsys, Name: root}
	err := fn(root, d, nil)
	if err == nil {
		err = wk.dir(fsys, root, root, d, 0, false)
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

// A walk is the state of one WalkDir.
type walk struct {
	w           *Walker
	fn          WalkDirFunc
	beforeClose func(string, *vfs.FS) error
}

// dir walks the entries of directory dir of fsys, level containers deep,
// whose path is p and entry d (a container's when dir is its root);
// dataset is set below an array or a group.
func (wk *walk) dir(fsys *vfs.FS, dir, p string, d *Entry, level int, dataset bool) error {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		err = wk.fn(p, d, err)
		if errors.Is(err, fs.SkipDir) {
			return nil
		}
		return err
	}
	dataset = dataset || wk.w.InDataset(fsys, dir, ents)
	entries := wk.w.Dir(fsys, dir, ents, level, dataset)
	defer entries.Close()
	for {
		if err := fsys.Context().Err(); err != nil {
			return err
		}
		e, err := entries.Next()
		if e == nil {
			return nil
		}
		if err := wk.entry(path.Join(p, e.DirEntry.Name()), e, err, dataset); err != nil {
			if errors.Is(err, fs.SkipDir) {
				return nil // returned for a file: the rest of dir is skipped
			}
			return err
		}
	}
}

// entry walks e, at path p, given with the error Dir.Next returned.
func (wk *walk) entry(p string, e *Entry, err error, dataset bool) error {
	if e.Nested != nil {
		defer e.Nested.Close()
		err := wk.fn(p, e, nil)
		if err == nil {
			err = wk.dir(e.Nested, ".", p, e, e.Level+1, false)
		}
		if errors.Is(err, fs.SkipDir) {
			err = nil
		}
		if err == nil && wk.beforeClose != nil {
			err = wk.beforeClose(p, e.Nested)
		}
		return err
	}
	if err != nil {
		err = wk.fn(p, e, err)
	} else {
		err = wk.fn(p, e, nil)
		if err == nil && e.IsDir() {
			err = wk.dir(e.FS, e.Name, p, e, e.Level, dataset)
		}
	}
	if e.IsDir() && errors.Is(err, fs.SkipDir) {
		return nil
	}
	return err
}

// A rootEntry is the entry of the root of a walk: a directory, stated
// only when its Info is asked for.
type rootEntry struct {
	fsys *vfs.FS
	name string
}

func (r rootEntry) Name() string               { return path.Base(r.name) }
func (r rootEntry) IsDir() bool                { return true }
func (r rootEntry) Type() fs.FileMode          { return fs.ModeDir }
func (r rootEntry) Info() (fs.FileInfo, error) { return r.fsys.Stat(r.name) }
