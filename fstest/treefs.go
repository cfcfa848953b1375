package fstest

import (
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// TreeFS returns a minimal fs.FS over t, to test a driver.Tree that a test
// holds directly (an archive opened without a pipeline) with
// testing/fstest.TestFS, fs.WalkDir or template.ParseFS. Every call uses
// context.Background.
//
// The FS implements fs.StatFS and fs.ReadDirFS by calling t's Stat and
// ReadDir. Open of a directory lists it at once; Open of a regular file
// opens its blob, and the file implements io.ReaderAt and io.Seeker and
// closes the blob when it is closed. Symbolic links are not followed:
// Open of one returns a file whose Stat describes the link and whose Read
// fails.
func TreeFS(t driver.Tree) fs.FS { return treeFS{t} }

type treeFS struct{ t driver.Tree }

var (
	_ fs.StatFS    = treeFS{}
	_ fs.ReadDirFS = treeFS{}
)

func (f treeFS) Open(name string) (fs.File, error) {
	ctx := context.Background()
	fi, err := f.t.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		list, err := f.t.ReadDir(ctx, name)
		if err != nil {
			return nil, err
		}
		return &treeDir{fi: fi, list: list}, nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &treeLink{fi}, nil
	}
	b, err := f.t.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	return &treeFile{b: b, fi: fi}, nil
}

func (f treeFS) Stat(name string) (fs.FileInfo, error) {
	return f.t.Stat(context.Background(), name)
}

func (f treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return f.t.ReadDir(context.Background(), name)
}

// treeDir is an open directory: its list, read from pos on.
type treeDir struct {
	fi   fs.FileInfo
	list []fs.DirEntry
	pos  int
}

var _ fs.ReadDirFile = (*treeDir)(nil)

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.fi, nil }

func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.fi.Name(), Err: vfs.ErrIsDir}
}

func (d *treeDir) Close() error { return nil }

func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.list[d.pos:]
	if n <= 0 {
		d.pos = len(d.list)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.pos += len(rest)
	return rest, nil
}

// treeLink is an open symbolic link, not followed.
type treeLink struct{ fi fs.FileInfo }

func (l *treeLink) Stat() (fs.FileInfo, error) { return l.fi, nil }
func (l *treeLink) Read([]byte) (int, error)   { return 0, errors.New("link not followed") }
func (l *treeLink) Close() error               { return nil }

// treeFile is an open regular file: its blob, read from off on.
type treeFile struct {
	b   driver.Blob
	fi  fs.FileInfo
	off int64
}

var (
	_ io.ReaderAt = (*treeFile)(nil)
	_ io.Seeker   = (*treeFile)(nil)
)

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.fi, nil }

func (f *treeFile) Read(p []byte) (int, error) {
	n, err := f.b.ReadAt(context.Background(), p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (f *treeFile) ReadAt(p []byte, off int64) (int, error) {
	return f.b.ReadAt(context.Background(), p, off)
}

func (f *treeFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += f.off
	case io.SeekEnd:
		off += f.fi.Size()
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.fi.Name(), Err: fs.ErrInvalid}
	}
	f.off = off
	return off, nil
}

func (f *treeFile) Close() error {
	if c, ok := f.b.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
