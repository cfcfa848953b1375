package zipadapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/pipefs/pipefs/vfs"
)

// treeFS is a minimal fs.FS over a vfs.Tree, for testing/fstest.TestFS.
type treeFS struct{ t vfs.Tree }

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
		return &dirFile{fi: fi, list: list}, nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// Links are not followed; fstest only opens and stats them.
		return &linkFile{fi}, nil
	}
	b, err := f.t.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	return &blobFile{b: b, fi: fi}, nil
}

func (f treeFS) Stat(name string) (fs.FileInfo, error) {
	return f.t.Stat(context.Background(), name)
}

func (f treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return f.t.ReadDir(context.Background(), name)
}

type dirFile struct {
	fi   fs.FileInfo
	list []fs.DirEntry
	pos  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.fi, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.fi.Name(), Err: vfs.ErrIsDir}
}
func (d *dirFile) Close() error { return nil }
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
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

type linkFile struct{ fi fs.FileInfo }

func (l *linkFile) Stat() (fs.FileInfo, error) { return l.fi, nil }
func (l *linkFile) Read([]byte) (int, error)   { return 0, errors.New("link not followed") }
func (l *linkFile) Close() error               { return nil }

type blobFile struct {
	b   vfs.Blob
	fi  fs.FileInfo
	off int64
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.fi, nil }
func (f *blobFile) Read(p []byte) (int, error) {
	n, err := f.b.ReadAt(context.Background(), p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}
func (f *blobFile) ReadAt(p []byte, off int64) (int, error) {
	return f.b.ReadAt(context.Background(), p, off)
}
func (f *blobFile) Seek(off int64, whence int) (int64, error) {
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
func (f *blobFile) Close() error {
	if c, ok := f.b.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// readAll walks t and returns the contents of every regular file, reading
// at most max bytes of each; links map to "->link".
func readAll(t vfs.Tree, max int64) (map[string]string, error) {
	got := map[string]string{}
	err := fs.WalkDir(treeFS{t}, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			got[name] = "->link"
			return nil
		}
		b, err := t.OpenBlob(context.Background(), name)
		if err != nil {
			return err
		}
		defer func() {
			if c, ok := b.(io.Closer); ok {
				c.Close()
			}
		}()
		data, err := io.ReadAll(io.LimitReader(io.NewSectionReader(vfs.ReaderAt(context.Background(), b), 0, b.Stat().Size()), max))
		if err != nil {
			return &fs.PathError{Op: "read", Path: name, Err: err}
		}
		got[name] = string(data)
		return nil
	})
	return got, err
}

var _ = path.Join

func reflectTypeString(v any) string { return fmt.Sprintf("%T", v) }
