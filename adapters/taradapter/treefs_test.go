package taradapter

import (
	"context"
	"io"
	"io/fs"

	"github.com/pipefs/pipefs/vfs"
)

// treeFS is a minimal fs.FS over a vfs.Tree, for fs.WalkDir and
// testing/fstest.TestFS in tests that hold an *Archive directly.
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
	b, err := f.t.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	return &blobFile{r: io.NewSectionReader(vfs.ReaderAt(ctx, b), 0, b.Stat().Size()), fi: fi}, nil
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

type blobFile struct {
	r  *io.SectionReader
	fi fs.FileInfo
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.fi, nil }
func (f *blobFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *blobFile) Close() error               { return nil }
