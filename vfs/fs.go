package vfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"
)

// FS is the io/fs view of a directory location of a pipeline. It
// implements fs.FS, fs.StatFS, fs.ReadDirFS, fs.ReadFileFS, fs.SubFS and
// fs.ReadLinkFS (see ReadLink and Lstat).
//
// An FS is safe for concurrent use. It carries the context its methods use
// for I/O; WithContext returns a copy with another. Sub and WithContext
// share the opened pipeline with their parent, and Close releases it for
// all of them.
type FS struct {
	ctx  context.Context
	tree driver.Tree
	dir  string   // the directory in tree, "." for its root
	p    Pipeline // the resolved pipeline naming dir
	// detected is the index in p of the first sub-URL that format
	// detection appended, 0 when it appended none.
	detected int
	opts     *Options
	res      *resources
	state    openState // what the open knew at the FS's root (OpenFS)
}

var (
	_ fs.FS         = (*FS)(nil)
	_ fs.StatFS     = (*FS)(nil)
	_ fs.ReadDirFS  = (*FS)(nil)
	_ fs.ReadFileFS = (*FS)(nil)
	_ fs.SubFS      = (*FS)(nil)
)

// OpenFS opens the directory location that pipeline names. A file location
// is accepted when it is a container: with detection on (the default) the
// format is recognised and its adapter appended, so "file:/d/a.zip" opens as
// "file:/d/a.zip|zip:". A compressed file whose contents are no container
// (a gzip, zstd, xz or bzip2 stream of text, any adapter registered as a
// Stream) is the folder that holds its decompressed file, named as the
// stream's driver names it: "file:/d/big.txt.gz" opens as
// "file:/d/big.txt.gz|gzip:", an FS with the one file "big.txt", whose URL
// is that pipeline. The file reads as any member does, with random access
// through the stream's index. A compressed tar is the tar's directory, as
// before. The FS uses ctx for I/O until WithContext changes
// it. The caller must Close the FS to release the pipeline's resources.
func OpenFS(ctx context.Context, pipeline string, o *Options) (*FS, error) {
	p, err := Parse(pipeline)
	if err != nil {
		return nil, errorAt("open", pipeline, SuggestScheme(err, o))
	}
	r, err := openPipeline(ctx, p, o, KindDirectory)
	if err != nil {
		return nil, errorAt("open", p.String(), err)
	}
	return newFS(r, ctx, o), nil
}

// Pipeline returns the resolved pipeline that names the FS's root, with any
// detected adapters written out.
func (f *FS) Pipeline() Pipeline { return f.p }

// URL returns the canonical pipeline of name inside the FS. It returns ""
// when name is not a valid fs name.
func (f *FS) URL(name string) string {
	if !fs.ValidPath(name) {
		return ""
	}
	return f.urlOf(name).String()
}

func (f *FS) urlOf(name string) Pipeline { return joinName(f.p, name) }

// joinName returns the pipeline of name inside the directory that p names.
func joinName(p Pipeline, name string) Pipeline {
	p = p.Append()
	if i := len(p) - 1; i > 0 {
		if _, yields, ok := SchemeKinds(p[i].Scheme); ok && yields == KindFile {
			// The folder a decompressed stream appears as (see
			// streamDir): its one file is the stream itself.
			return p
		}
	}
	if i := len(p) - 1; name != "." && i > 0 {
		if info, ok := lookupScheme(p[i].Scheme); ok && info.path == pathNone {
			// An adapter that takes no path and shows its base directory
			// as it is (neuroglancer-precomputed): a file inside is
			// named through the base.
			p = p[:i]
		}
	}
	p[len(p)-1] = p[len(p)-1].Join(name)
	return p
}

// Context returns the context the FS uses for I/O.
func (f *FS) Context() context.Context { return f.ctx }

// WithContext returns a copy of the FS that uses ctx for I/O.
func (f *FS) WithContext(ctx context.Context) *FS {
	if ctx == nil {
		panic("vfs: nil context")
	}
	g := *f
	g.ctx = ctx
	return &g
}

// Close releases the pipeline: the stages' files and connections, innermost
// first. Files opened from the FS must not be used after it is closed.
// What a stage writes as it closes (an index kept as a sidecar, see
// Options.Sidecar) follows the FS's context: once it is cancelled, Close
// waits for no server.
func (f *FS) Close() error { return f.res.close(f.ctx) }

func (f *FS) full(name string) string {
	if f.dir == "." {
		return name
	}
	if name == "." {
		return f.dir
	}
	return f.dir + "/" + name
}

// fail builds the error of op on name: a *fs.PathError whose cause names
// the sub-URL of name.
func (f *FS) fail(op, name string, err error) error {
	return pathError(op, name, f.urlOf(name), f.detected, err)
}

// pathError builds the error of op on name, whose pipeline is p, when a
// driver failed with err: a *fs.PathError whose cause is a StageError
// naming the innermost sub-URL of p, unless err already names a stage or
// is the context's. detected is the index in p of the first sub-URL that
// format detection appended, 0 when none (see StageError.Detected).
func pathError(op, name string, p Pipeline, detected int, err error) error {
	err = unwrapPath(err)
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		err = stageErr(p, len(p)-1, err)
		if detected > 0 && detected <= len(p) {
			markDetected(err, p[:detected], p)
		}
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

func (f *FS) check(op, name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if err := f.ctx.Err(); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

// Open opens the named file or directory. A regular file is a *File that
// implements io.ReaderAt and io.Seeker; a directory is a *File that
// implements fs.ReadDirFile.
func (f *FS) Open(name string) (fs.File, error) {
	file, err := f.OpenFile(name)
	if err != nil {
		return nil, err // not a typed nil
	}
	return file, nil
}

// OpenFile is Open with the concrete result type.
func (f *FS) OpenFile(name string) (*File, error) {
	if err := f.check("open", name); err != nil {
		return nil, err
	}
	full := f.full(name)
	info, err := f.tree.Stat(f.ctx, full)
	if err != nil {
		return nil, f.fail("open", name, err)
	}
	p := f.urlOf(name)
	if info.IsDir() {
		d := newDir(f.ctx, f.tree, full, name, p, info, nil)
		d.detected = f.detected
		return d, nil
	}
	if !info.Mode().IsRegular() {
		// A link that is not followed, a device, a FIFO: it can be
		// opened and described, as fs.FS requires, but not read.
		file := newFile(f.ctx, nil, name, p, info, nil)
		file.detected = f.detected
		return file, nil
	}
	b, err := f.tree.OpenBlob(f.ctx, full)
	if err != nil {
		return nil, f.fail("open", name, err)
	}
	file := newFile(f.ctx, b, name, p, info, nil)
	file.direct = f.opts != nil && f.opts.NoReadAhead
	file.detected = f.detected
	return file, nil
}

// Stat describes the named file or directory. Its Sys method returns an
// *Origin.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	if err := f.check("stat", name); err != nil {
		return nil, err
	}
	info, err := f.tree.Stat(f.ctx, f.full(name))
	if err != nil {
		return nil, f.fail("stat", name, err)
	}
	return wrapInfo(info, name, f.URL(name)), nil
}

// ReadDir lists the named directory, sorted by name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.check("readdir", name); err != nil {
		return nil, err
	}
	full := f.full(name)
	ents, err := f.tree.ReadDir(f.ctx, full)
	if err != nil {
		return nil, f.fail("readdir", name, err)
	}
	return wrapEntries(ents, f.urlOf(name)), nil
}

// ReadFile reads the named file whole.
func (f *FS) ReadFile(name string) ([]byte, error) {
	if err := f.check("readfile", name); err != nil {
		return nil, err
	}
	full := f.full(name)
	b, err := f.tree.OpenBlob(f.ctx, full)
	if err != nil {
		return nil, f.fail("readfile", name, err)
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	data, err := readAll(f.ctx, b, f.opts.limits().MaxFileSize)
	if err != nil {
		return nil, f.fail("readfile", name, err)
	}
	return data, nil
}

// Sub returns the FS of directory dir.
func (f *FS) Sub(dir string) (fs.FS, error) {
	if err := f.check("sub", dir); err != nil {
		return nil, err
	}
	if dir == "." {
		return f, nil
	}
	full := f.full(dir)
	info, err := f.tree.Stat(f.ctx, full)
	if err != nil {
		return nil, f.fail("sub", dir, err)
	}
	if !info.IsDir() {
		return nil, f.fail("sub", dir, ErrNotDir)
	}
	g := *f
	g.dir = full
	g.p = f.urlOf(dir)
	return &g, nil
}

// readAll reads b whole. It trusts b's size only as far as reads prove
// it: the buffer starts at one chunk and doubles, up to one byte past the
// size, so that a size that lies cannot make it allocate much more than
// what is read, and a blob that serves more than its size fails at once.
func readAll(ctx context.Context, b driver.Blob, limit int64) ([]byte, error) {
	size := b.Stat().Size()
	if size < 0 {
		return nil, driver.Corruptf("negative size %d", size)
	}
	if size > limit {
		return nil, driver.Limitf("file size %d exceeds Limits.MaxFileSize (%d)", size, limit)
	}
	const chunk = 1 << 20
	buf := make([]byte, 0, min(size, chunk)+1)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), size+1-int64(len(buf)))))
		}
		n, err := b.ReadAt(ctx, buf[len(buf):min(cap(buf), len(buf)+chunk)], int64(len(buf)))
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > size {
			return nil, driver.Corruptf("file is longer than its size, %d bytes", size)
		}
		if err == io.EOF {
			if int64(len(buf)) != size {
				return nil, driver.Corruptf("read %d bytes, size says %d", len(buf), size)
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, io.ErrNoProgress
		}
	}
}

// Origin is what Stat().Sys() returns for files of a pipeline.
type Origin struct {
	// URL is the canonical pipeline of the file.
	URL string
	// Header is the raw header of the entry, such as a *zip.FileHeader,
	// or the Sys value of the driver; nil when there is none.
	Header any
}

type fileInfo struct {
	fs.FileInfo
	name   string
	origin *Origin
}

func (fi *fileInfo) Name() string { return fi.name }
func (fi *fileInfo) Sys() any     { return fi.origin }
func (fi *fileInfo) String() string {
	return fs.FormatFileInfo(fi)
}

func wrapInfo(info fs.FileInfo, name, url string) fs.FileInfo {
	base := path.Base(name)
	if name == "." {
		base = "."
	}
	return &fileInfo{info, base, &Origin{URL: url, Header: info.Sys()}}
}

type dirEntry struct {
	fs.DirEntry
	dir Pipeline // of the directory
}

func (e *dirEntry) Info() (fs.FileInfo, error) {
	info, err := e.DirEntry.Info()
	if err != nil {
		return nil, err
	}
	return &entryInfo{FileInfo: info, name: e.Name(), dir: e.dir}, nil
}

// entryInfo is the FileInfo of a directory entry: its Origin, whose URL
// costs a pipeline to build and whose Header may cost the driver a
// decode, is made when Sys is first called, since a listing (ls, WalkDir)
// of many entries seldom asks for it.
type entryInfo struct {
	fs.FileInfo
	name   string
	dir    Pipeline // of the directory
	once   sync.Once
	origin *Origin
}

func (fi *entryInfo) Name() string { return fi.name }
func (fi *entryInfo) Sys() any {
	fi.once.Do(func() {
		fi.origin = &Origin{URL: joinName(fi.dir, fi.name).String(), Header: fi.FileInfo.Sys()}
	})
	return fi.origin
}
func (fi *entryInfo) String() string { return fs.FormatFileInfo(fi) }

func (e *dirEntry) String() string { return fs.FormatDirEntry(e) }

func wrapEntries(ents []fs.DirEntry, dir Pipeline) []fs.DirEntry {
	out := make([]fs.DirEntry, len(ents))
	wrapped := make([]dirEntry, len(ents)) // one allocation for all
	for i, e := range ents {
		wrapped[i] = dirEntry{e, dir}
		out[i] = &wrapped[i]
	}
	return out
}
