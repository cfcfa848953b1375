package vfs

import (
	"context"
	"io"
	"io/fs"
)

// A Blob is the driver-level view of a random-access byte object: a file of
// a root, a member of an archive, a decompressed stream, a byte range.
//
// ReadAt follows the io.ReaderAt contract (it returns a non-nil error, io.EOF
// at the end, whenever n < len(p)) and must be safe for concurrent use. Stat
// reports the blob's name, size, mode and time; Stat().Size() is the number
// of bytes ReadAt serves. A Blob may also implement io.Closer, in which case
// its owner closes it when done; a layer never closes the blobs it reads from.
type Blob interface {
	ReadAt(ctx context.Context, p []byte, off int64) (n int, err error)
	Stat() fs.FileInfo
}

// A Tree is the driver-level view of a directory-like stage: a root
// directory, an archive, a versioned store. Names are fs.ValidPath names,
// "." is the tree's root. Methods must be safe for concurrent use and return
// errors that match fs.ErrNotExist, fs.ErrPermission or fs.ErrInvalid where
// those apply; the engine wraps them in *fs.PathError values.
//
// A Tree may also implement io.Closer; the engine closes it when the FS or
// file that owns the pipeline is closed.
type Tree interface {
	// Stat describes the named file or directory.
	Stat(ctx context.Context, name string) (fs.FileInfo, error)
	// ReadDir lists the named directory, sorted by name.
	ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error)
	// OpenBlob opens the named regular file for random access. It returns
	// an error matching ErrIsDir when name is a directory.
	OpenBlob(ctx context.Context, name string) (Blob, error)
}

// A Location is what one stage of a pipeline yields: either a tree and a
// path inside it, or a byte object.
type Location struct {
	Tree Tree   // a tree, and Path inside it
	Path string // an fs.ValidPath name in Tree; "" means "."
	Blob Blob   // a byte object; set instead of Tree

	// URL is the canonical pipeline that names this location. The engine
	// sets it on the input it passes to an adapter, so that the adapter can
	// key caches by it; drivers need not set it on what they return.
	URL string
}

// ReaderAt adapts b to io.ReaderAt, reading with ctx.
func ReaderAt(ctx context.Context, b Blob) io.ReaderAt {
	return readerAt{ctx, b}
}

type readerAt struct {
	ctx context.Context
	b   Blob
}

func (r readerAt) ReadAt(p []byte, off int64) (int, error) { return r.b.ReadAt(r.ctx, p, off) }

// A Streamer is a Blob that can be read sequentially from an offset more
// cheaply than through ReadAt: a decompressed stream that learns its size
// and builds its index as it is read. File.WriteTo, and so io.Copy of a
// File, uses it. The reader returns io.EOF at the end of the blob.
type Streamer interface {
	Stream(ctx context.Context, off int64) (io.ReadCloser, error)
}

// A SizeKnower is an fs.FileInfo whose Size may be costly to learn: the
// size of a decompressed stream is known only once it has been decoded to
// its end. While SizeKnown reports false, File.Read does not ask for the
// size and relies on the blob's ReadAt returning io.EOF at the end.
type SizeKnower interface {
	SizeKnown() bool
}
