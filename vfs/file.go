package vfs

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs/driver"
)

// File is an open file or directory of a pipeline.
//
// A regular file implements io.Reader, io.ReaderAt and io.Seeker. ReadAt is
// safe for concurrent use and does not move the offset that Read and Seek
// share; Read and Seek are serialised. A directory implements
// fs.ReadDirFile; Read and ReadAt on it fail with ErrIsDir.
type File struct {
	ctx  context.Context
	name string   // the name it was opened by
	p    Pipeline // the canonical pipeline
	// detected is the index in p of the first sub-URL that format
	// detection appended, 0 when it appended none.
	detected int
	info     fs.FileInfo
	blob     driver.Blob // nil for a directory
	res      *resources

	closed atomic.Bool // set under mu; ReadAt reads it without
	ra     readAheadState
	direct bool // Options.NoReadAhead
	mu     sync.Mutex
	off    int64

	// directories
	tree   driver.Tree
	full   string
	ents   []fs.DirEntry
	listed bool
}

var (
	_ fs.File        = (*File)(nil)
	_ fs.ReadDirFile = (*File)(nil)
	_ io.ReaderAt    = (*File)(nil)
	_ io.Seeker      = (*File)(nil)
	_ io.WriterTo    = (*File)(nil)
)

func newFile(ctx context.Context, b driver.Blob, name string, p Pipeline, info fs.FileInfo, res *resources) *File {
	f := &File{ctx: ctx, name: name, p: p, info: wrapInfo(info, name, p.String()), blob: b, res: res}
	f.ra.size.Store(-1)
	f.ra.next.Store(-1)
	return f
}

func newDir(ctx context.Context, t driver.Tree, full, name string, p Pipeline, info fs.FileInfo, res *resources) *File {
	return &File{ctx: ctx, name: name, p: p, info: wrapInfo(info, name, p.String()), tree: t, full: full, res: res}
}

// Open opens the file or directory location that pipeline names, as
// written: no format is detected, so "file:/d/a.zip" is the zip file and
// "file:/d/x.zarr/" the directory. It is the package's one way to open a
// location as a File; OpenFS opens a directory (detecting the format of a
// container file) and OpenDetect opens whichever of the two the location
// is. A caller that needs a regular file checks Stat().IsDir(): reading a
// directory fails with ErrIsDir.
//
// The file uses ctx for its reads and listings, so ctx must outlive them.
// The caller must Close it, which releases the pipeline.
func Open(ctx context.Context, pipeline string, o *Options) (*File, error) {
	p, err := Parse(pipeline)
	if err != nil {
		return nil, errorAt("open", pipeline, SuggestScheme(err, o))
	}
	r, err := openPipeline(ctx, p, o, KindAny)
	if err != nil {
		return nil, errorAt("open", p.String(), err)
	}
	if r.loc.Blob != nil {
		return fileOf(r, ctx, o), nil
	}
	d := newDir(ctx, r.loc.Tree, clean(r.loc.Path), lastName(r.p), r.p, r.info, r.res)
	d.detected = r.detectedAt()
	return d, nil
}

// fileName is the name of the file that p names and info describes. The
// path of a byte transform (gzip:, byte-range:) names no file, so its file
// takes the name its driver gives.
func fileName(p Pipeline, info fs.FileInfo) string {
	u := p[len(p)-1]
	if _, yields, _ := SchemeKinds(u.Scheme); yields == KindFile || u.Key() == "." {
		if name := info.Name(); name != "" && name != "." {
			return name
		}
	}
	return lastName(p)
}

// lastName is the base name of the innermost path of p, "." when empty.
func lastName(p Pipeline) string {
	k := p[len(p)-1].Key()
	for i := len(k) - 1; i >= 0; i-- {
		if k[i] == '/' {
			return k[i+1:]
		}
	}
	return k
}

// Name returns the name the file was opened by.
func (f *File) Name() string { return f.name }

// URL returns the canonical pipeline of the file.
func (f *File) URL() string { return f.p.String() }

// Stat describes the file. Its Sys method returns an *Origin.
func (f *File) Stat() (fs.FileInfo, error) {
	if f.isClosed() {
		return nil, f.err("stat", fs.ErrClosed)
	}
	return f.info, nil
}

// Size returns the size of a regular file in bytes.
func (f *File) Size() int64 { return f.info.Size() }

// notRegular is the error of reading a file that has no bytes.
func (f *File) notRegular() error {
	if f.tree != nil {
		return ErrIsDir
	}
	return fmt.Errorf("%w: not a regular file (%v)", fs.ErrInvalid, f.info.Mode().Type())
}

func (f *File) isClosed() bool { return f.closed.Load() }

// err is the error of op on the file, for failures of the file itself.
func (f *File) err(op string, err error) error {
	return &fs.PathError{Op: op, Path: f.name, Err: unwrapPath(err)}
}

// driverErr is the error of op on the file when its driver failed: it
// names the file's sub-URL.
func (f *File) driverErr(op string, err error) error {
	return pathError(op, f.name, f.p, f.detected, err)
}

// ReadAt reads len(p) bytes at off, as io.ReaderAt. It is safe for
// concurrent use. A small read (under 16 KiB) that continues the previous
// read of the file, by Read or ReadAt, reads 64 KiB ahead into a window
// that the small reads after it are copied from; the window is replaced,
// never written, so concurrent reads need no lock. A read ahead that
// fails on corrupt data or a limit past the bytes asked is retried as the
// read asked for, so such a read fails only when its own bytes do.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.blob == nil {
		return 0, f.err("read", f.notRegular())
	}
	if off < 0 {
		return 0, f.err("read", fmt.Errorf("%w: negative offset", fs.ErrInvalid))
	}
	if err := f.ctx.Err(); err != nil {
		return 0, f.err("read", err)
	}
	if f.isClosed() {
		return 0, f.err("read", fs.ErrClosed)
	}
	n, err := f.readAt(p, off)
	if err != nil && err != io.EOF {
		err = f.driverErr("read", err)
	}
	return n, err
}

// Read reads from the current offset. Small sequential reads are served
// from a window that reads ahead (64 KiB, see ReadAt); a Read that is
// large, or that does not continue the previous read, reads the file
// directly.
func (f *File) Read(p []byte) (int, error) {
	if f.blob == nil {
		return 0, f.err("read", f.notRegular())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Load() {
		return 0, f.err("read", fs.ErrClosed)
	}
	if err := f.ctx.Err(); err != nil {
		return 0, f.err("read", err)
	}
	if size, ok := f.knownSize(); ok && f.off >= size {
		return 0, io.EOF
	}
	n, err := f.readAt(p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	if err != nil && err != io.EOF {
		err = f.driverErr("read", err)
	}
	return n, err
}

// WriteTo writes the file from the current offset to its end, as
// io.WriterTo, so that io.Copy streams it: a blob that is a Streamer (a
// decompressed stream) is read sequentially, without first learning its
// size; other blobs are read in large pieces. A failure of w is returned
// as it is; a failed read is a read *fs.PathError of the file.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if f.blob == nil {
		return 0, f.err("read", f.notRegular())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Load() {
		return 0, f.err("read", fs.ErrClosed)
	}
	if err := f.ctx.Err(); err != nil {
		return 0, f.err("read", err)
	}
	if s, ok := f.blob.(driver.Streamer); ok {
		rc, err := s.Stream(f.ctx, f.off)
		if err != nil {
			return 0, f.driverErr("read", err)
		}
		defer rc.Close()
		tw := &trackedWriter{w: w}
		n, err := io.Copy(tw, rc)
		f.off += n
		if tw.err != nil {
			return n, tw.err // the writer's failure is its own, not a read's
		}
		if err != nil {
			return n, f.driverErr("read", err)
		}
		return n, nil
	}
	buf := make([]byte, min(max(f.info.Size()-f.off, 1), writeToBuffer))
	var total int64
	for f.off < f.info.Size() {
		n, err := f.blob.ReadAt(f.ctx, buf[:min(int64(len(buf)), f.info.Size()-f.off)], f.off)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			f.off += int64(m)
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return total, f.driverErr("read", err)
		}
		if n == 0 {
			return total, f.err("read", io.ErrNoProgress)
		}
	}
	return total, nil
}

// writeToBuffer is the size of WriteTo's reads from a blob that is not a
// Streamer.
const writeToBuffer = 1 << 20

// A trackedWriter is the writer of a copy, which keeps its first failure
// so that the copy's error can be told to be the writer's, not the
// reader's.
type trackedWriter struct {
	w   io.Writer
	err error
}

func (t *trackedWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}

// Seek sets the offset of the next Read, as io.Seeker.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	if f.blob == nil {
		return 0, f.err("seek", f.notRegular())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Load() {
		return 0, f.err("seek", fs.ErrClosed)
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.info.Size()
	default:
		return 0, f.err("seek", fs.ErrInvalid)
	}
	if offset < 0 {
		return 0, f.err("seek", fs.ErrInvalid)
	}
	f.off = offset
	return offset, nil
}

// ReadDir reads the directory's entries, as fs.ReadDirFile.
func (f *File) ReadDir(n int) ([]fs.DirEntry, error) {
	if f.tree == nil {
		return nil, f.err("readdir", ErrNotDir)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Load() {
		return nil, f.err("readdir", fs.ErrClosed)
	}
	if !f.listed {
		if err := f.ctx.Err(); err != nil {
			return nil, f.err("readdir", err)
		}
		ents, err := f.tree.ReadDir(f.ctx, f.full)
		if err != nil {
			return nil, f.driverErr("readdir", err)
		}
		f.ents, f.listed = wrapEntries(ents, f.p), true
	}
	if n <= 0 {
		ents := f.ents
		f.ents = nil
		return ents, nil
	}
	if len(f.ents) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(f.ents))
	ents := f.ents[:n:n]
	f.ents = f.ents[n:]
	return ents, nil
}

// Close closes the file; for a file from Open it releases the
// pipeline too. What a stage writes as it closes (see FS.Close) follows
// the file's context.
func (f *File) Close() error {
	f.mu.Lock()
	if f.closed.Load() {
		f.mu.Unlock()
		return f.err("close", fs.ErrClosed)
	}
	f.closed.Store(true)
	f.ra.win.Store(nil)
	f.mu.Unlock()
	var err error
	if f.res != nil {
		err = f.res.close(f.ctx)
	} else if c, ok := f.blob.(io.Closer); ok {
		err = closeWith(f.ctx, c)
	}
	if err != nil {
		return f.err("close", err)
	}
	return nil
}

// sizeKnown reports whether info's Size answers without decoding anything
// (see SizeKnower).
func sizeKnown(info fs.FileInfo) bool {
	if w, ok := info.(*fileInfo); ok {
		info = w.FileInfo
	}
	k, ok := info.(driver.SizeKnower)
	return !ok || k.SizeKnown()
}
