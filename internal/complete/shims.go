package complete

import (
	"context"
	"io/fs"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// fileBlob is an open vfs.File as a driver.Blob, for detection. Reads
// use the file's context.
type fileBlob struct{ f *vfs.File }

func (b fileBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return b.f.ReadAt(p, off)
}

// Stat describes the file; it is read before the file is closed.
func (b fileBlob) Stat() fs.FileInfo {
	info, _ := b.f.Stat()
	return info
}

// fsTree is a vfs.FS as a driver.Tree, for directory formats.
type fsTree struct{ fsys *vfs.FS }

func (t fsTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	return t.fsys.WithContext(ctx).Stat(name)
}

func (t fsTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return t.fsys.WithContext(ctx).ReadDir(name)
}

func (t fsTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	f, err := t.fsys.WithContext(ctx).OpenFile(name)
	if err != nil {
		return nil, err
	}
	return fileBlob{f}, nil
}
