package driver

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"
)

// FileInfo is a plain fs.FileInfo and fs.DirEntry that drivers can fill in.
type FileInfo struct {
	FName    string      // base name
	FSize    int64       // size in bytes
	FMode    fs.FileMode // mode bits, fs.ModeDir for a directory
	FModTime time.Time   // modification time
	FSys     any         // the raw header, if any
}

var (
	_ fs.FileInfo = (*FileInfo)(nil)
	_ fs.DirEntry = (*FileInfo)(nil)
)

// Name returns the base name.
func (fi *FileInfo) Name() string { return fi.FName }

// Size returns the size in bytes.
func (fi *FileInfo) Size() int64 { return fi.FSize }

// Mode returns the mode bits.
func (fi *FileInfo) Mode() fs.FileMode { return fi.FMode }

// ModTime returns the modification time.
func (fi *FileInfo) ModTime() time.Time { return fi.FModTime }

// IsDir reports whether the entry is a directory.
func (fi *FileInfo) IsDir() bool { return fi.FMode.IsDir() }

// Sys returns the raw header.
func (fi *FileInfo) Sys() any { return fi.FSys }

// Type returns the type bits.
func (fi *FileInfo) Type() fs.FileMode { return fi.FMode.Type() }

// Info returns fi itself.
func (fi *FileInfo) Info() (fs.FileInfo, error) { return fi, nil }

// String formats the entry like fs.FormatFileInfo.
func (fi *FileInfo) String() string { return fs.FormatFileInfo(fi) }

// SectionBlob returns the bytes [off, off+n) of parent as a blob described
// by info (whose size should be n). Reads go straight to parent: nothing is
// copied or buffered, so sections of sections cost nothing. The section
// does not own parent.
func SectionBlob(parent Blob, off, n int64, info fs.FileInfo) Blob {
	if s, ok := parent.(*section); ok && off >= 0 && n >= 0 && off <= s.n && n <= s.n-off {
		// Flatten nested sections that lie inside their parent: one
		// bounds check, one call. One that overruns its parent stays
		// nested, so that its reads stop at the parent's end.
		return &section{s.parent, s.off + off, n, info}
	}
	return &section{parent, off, n, info}
}

type section struct {
	parent Blob
	off, n int64
	info   fs.FileInfo
}

func (s *section) Stat() fs.FileInfo { return s.info }

func (s *section) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: s.info.Name(), Err: fs.ErrInvalid}
	}
	if off >= s.n {
		return 0, io.EOF
	}
	short := false
	if max := s.n - off; int64(len(p)) > max {
		p, short = p[:max], true
	}
	n, err := s.parent.ReadAt(ctx, p, s.off+off)
	if err == io.EOF {
		if n < len(p) {
			// The parent ended before the section did: it is shorter
			// than its header said.
			return n, Corruptf("%s: truncated: section ends at %d, data at %d", s.info.Name(), s.off+s.n, s.off+off+int64(n))
		}
		err = nil
	}
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

// BytesBlob returns a blob that reads b, described by info (nil means a
// regular file named "" of len(b) bytes). b must not be modified afterwards.
func BytesBlob(b []byte, info fs.FileInfo) Blob {
	if info == nil {
		info = &FileInfo{FSize: int64(len(b)), FMode: 0o444}
	}
	return &bytesBlob{b, info}
}

type bytesBlob struct {
	b    []byte
	info fs.FileInfo
}

func (b *bytesBlob) Stat() fs.FileInfo { return b.info }

func (b *bytesBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: b.info.Name(), Err: fs.ErrInvalid}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if off >= int64(len(b.b)) {
		return 0, io.EOF
	}
	n := copy(p, b.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Prefetch asks b to fetch [off, off+n) ahead of reads, through any
// sections, when the blob underneath is a Prefetcher. It is a hint: it does
// nothing for other blobs.
func Prefetch(ctx context.Context, b Blob, off, n int64) error {
	if s, ok := b.(*section); ok {
		if off >= s.n {
			return nil
		}
		return Prefetch(ctx, s.parent, s.off+off, min(n, s.n-off))
	}
	if p, ok := b.(Prefetcher); ok {
		return p.Prefetch(ctx, off, n)
	}
	return nil
}

// GrowSuffix tells b that the end structures of its object need n bytes
// from the end, when b is a SuffixGrower. It is a hint: it does nothing for
// other blobs, sections included, since n bytes from the end of a section
// are not n bytes from the end of its object.
func GrowSuffix(b Blob, n int64) {
	if g, ok := b.(SuffixGrower); ok {
		g.GrowSuffix(n)
	}
}

// CompressedSize returns the compressed size at the bottom of b: b's own
// CompressedSize when it is Compressed, else its size.
func CompressedSize(b Blob) int64 {
	if c, ok := b.(Compressed); ok {
		return c.CompressedSize()
	}
	return b.Stat().Size()
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

// SubTree returns the tree of directory dir in t. Names passed to it are
// joined to dir; t is not owned.
func SubTree(t Tree, dir string) Tree {
	if dir == "." || dir == "" {
		return t
	}
	if s, ok := t.(*subTree); ok {
		return &subTree{s.t, path.Join(s.dir, dir)}
	}
	return &subTree{t, dir}
}

type subTree struct {
	t   Tree
	dir string
}

func (s *subTree) full(name string) string {
	if name == "." {
		return s.dir
	}
	return s.dir + "/" + name
}

func (s *subTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	return s.t.Stat(ctx, s.full(name))
}

func (s *subTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return s.t.ReadDir(ctx, s.full(name))
}

func (s *subTree) OpenBlob(ctx context.Context, name string) (Blob, error) {
	return s.t.OpenBlob(ctx, s.full(name))
}

// Counts are what reading a stage cost: the requests made and bytes
// fetched by a remote root, and the block cache's hits and misses.
type Counts struct {
	Hits     int64 // blocks served from the cache
	Misses   int64 // blocks fetched
	Requests int64 // requests made
	Bytes    int64 // bytes fetched
}

// String formats the counts for people.
func (c Counts) String() string {
	return fmt.Sprintf("%d requests, %d bytes fetched, %d block hits, %d misses", c.Requests, c.Bytes, c.Hits, c.Misses)
}
