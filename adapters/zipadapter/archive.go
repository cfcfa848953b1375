package zipadapter

import (
	"archive/zip"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/vfs"
)

// An Archive is a zip archive opened over a blob: a [driver.Tree] whose files
// are the archive's members. It is safe for concurrent use. See the package
// documentation for the naming rules and limits.
type Archive struct {
	blob driver.Blob
	size int64
	r    *zip.Reader
	lim  vfs.Limits
	// cache holds the indexes of DEFLATE members (Options.Cache).
	cache *vfs.Cache

	key         string // names the archive in the index cache; "" for none
	root        driver.FileInfo
	ents        []entry // sorted by (dir, base)
	unreachable []*zip.File
	omitted     []driver.Omission
}

var _ driver.Tree = (*Archive)(nil)

// An entry is one reachable name: a member, or a directory that members
// imply.
type entry struct {
	dir, base string // dir is "." at the top level
	file      *zip.File
	info      driver.FileInfo
	hdr       int64 // absolute offset of the local header
	next      int64 // where the next entry or the central directory starts
}

// Open reads the central directory of the zip archive in b and returns the
// archive. ctx bounds the reads Open does; later reads take the context of
// their own call. o may be nil. The archive does not own b: b must stay
// readable while the archive and the blobs it returned are used, and the
// caller closes it.
//
// Errors match driver.ErrCorrupt for a malformed archive and driver.ErrLimit
// when o's limits are exceeded.
func Open(ctx context.Context, b driver.Blob, o *vfs.Options) (*Archive, error) {
	lim := o.EffectiveLimits()
	size := b.Stat().Size()
	if size < 0 {
		return nil, driver.Corruptf("negative archive size %d", size)
	}
	ra := driver.ReaderAt(ctx, b)
	// Request economy: the end records, and often the whole central
	// directory, in one read. A remote root has these bytes pinned
	// already; a stored archive inside another fetches them here.
	if tail := min(size, tailPrefetch); tail > 0 {
		if err := driver.Prefetch(ctx, b, size-tail, tail); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	end, err := readEnd(ra, size)
	if err == errNotZip {
		err = vfs.NotFormat(ctx, o, b, "zip", "a zip archive", "no end of central directory record")
	}
	if err != nil {
		return nil, err
	}
	// Then the directory, if the tail did not hold it, in one more; and
	// ask a remote root to read that much first next time.
	if g, ok := b.(suffixGrower); ok {
		g.GrowSuffix(size - end.dirStart)
	}
	if err := driver.Prefetch(ctx, b, end.dirStart, size-end.dirStart); err != nil {
		return nil, err
	}
	spans, dirLen, err := scanDirectory(ra, size, end, lim)
	if err != nil {
		return nil, err
	}
	// archive/zip reads the directory again, now that its size is known
	// to be within the limits. Its own cap (it preallocates at most one
	// File per 30 bytes of archive) would not stop a large honest
	// directory, so scanDirectory counted the records first. The reader
	// keeps rd for the *zip.Reader escape hatch: after Open returns, rd
	// reads with ctx's values but without its cancellation.
	rd := &openReaderAt{b: b, ctx: ctx}
	r, err := zip.NewReader(rd, size)
	rd.opened.Store(true)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, zipErr(ctx, err)
	}
	if len(r.File) != len(spans) {
		return nil, driver.Corruptf("central directory has %d records, archive/zip read %d", len(spans), len(r.File))
	}
	next, err := checkOverlap(spans, end.dirStart, dirLen, func(i int) string { return r.File[i].Name })
	if err != nil {
		return nil, err
	}
	a := &Archive{
		blob: b,
		size: size,
		r:    r,
		lim:  lim,
		root: driver.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555},
	}
	a.cache = o.EffectiveCache()
	a.index(spans, next)
	return a, nil
}

// zipErr turns an archive/zip error into one matching driver.ErrCorrupt,
// unless the blob failed (openReaderAt marks its errors) or the context
// was cancelled: those stay themselves. Everything else archive/zip
// reports is about the bytes it read.
func zipErr(ctx context.Context, err error) error {
	var in *inputError
	if errors.As(err, &in) {
		return in.err
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	return driver.Corruptf("%v", err)
}

// markedReaderAt marks the errors of r, other than io.EOF, as *inputError.
type markedReaderAt struct{ r io.ReaderAt }

func (m markedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := m.r.ReadAt(p, off)
	if err != nil && err != io.EOF {
		err = &inputError{err}
	}
	return n, err
}

// An inputError is an error of the blob under the archive, which
// archive/zip or a reader over it hands back: zipErr unwraps it.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// openReaderAt is the io.ReaderAt kept by the *zip.Reader.
type openReaderAt struct {
	b      driver.Blob
	ctx    context.Context
	opened atomic.Bool
}

func (r *openReaderAt) ReadAt(p []byte, off int64) (int, error) {
	ctx := r.ctx
	if r.opened.Load() {
		ctx = context.WithoutCancel(ctx)
	}
	n, err := r.b.ReadAt(ctx, p, off)
	if err != nil && err != io.EOF {
		err = &inputError{err}
	}
	return n, err
}

// index builds the sorted name index, as archive/zip's initFileList does,
// applying the naming rules of the package documentation.
func (a *Archive) index(spans []span, next []int64) {
	byName := make(map[string]int, len(a.r.File))
	var ents []entry
	hidden := make([]bool, len(a.r.File))
	owner := make([]int, 0, len(a.r.File)) // CD index of each entry, -1 if implicit
	for i, f := range a.r.File {
		name, isDir, ok := cleanName(f)
		if !ok {
			hidden[i] = true
			if name != "" { // "" and "./" name the root itself
				a.omitted = append(a.omitted, driver.Omission{Name: f.Name, Offset: spans[i].start, Reason: "not a valid io/fs name"})
			}
			continue
		}
		e := entry{file: f, hdr: spans[i].start, next: next[i]}
		e.dir, e.base = fsname.Split(name)
		e.info = fileInfo(e.base, f, isDir)
		if j, dup := byName[name]; dup {
			old := &ents[j]
			if old.info.IsDir() && !isDir {
				hidden[i] = true // a directory beats a file
				continue
			}
			if owner[j] >= 0 {
				hidden[owner[j]] = true // the later record wins
			}
			*old, owner[j] = e, i
		} else {
			byName[name] = len(ents)
			ents = append(ents, e)
			owner = append(owner, i)
		}
		// Every ancestor is a directory. Once one exists, all of its
		// ancestors do too.
		for p := fsname.Parent(name); p != "."; p = fsname.Parent(p) {
			if j, ok := byName[p]; ok {
				if !ents[j].info.IsDir() {
					hidden[owner[j]] = true
					ents[j] = implicitDir(p)
					owner[j] = -1
				}
				break
			}
			byName[p] = len(ents)
			ents = append(ents, implicitDir(p))
			owner = append(owner, -1)
		}
	}
	slices.SortFunc(ents, func(x, y entry) int {
		return cmp.Or(strings.Compare(x.dir, y.dir), strings.Compare(x.base, y.base))
	})
	a.ents = ents
	for i, h := range hidden {
		if h {
			a.unreachable = append(a.unreachable, a.r.File[i])
		}
	}
}

func implicitDir(name string) entry {
	e := entry{}
	e.dir, e.base = fsname.Split(name)
	e.info = driver.FileInfo{FName: e.base, FMode: fs.ModeDir | 0o555}
	return e
}

// cleanName returns the fs name of f, whether it is a directory, and
// whether the name can be exposed: as bsdtar does, leading "./" elements
// are dropped and a trailing "/" marks a directory; what is left must be an
// fs.ValidPath name other than "." with no NUL byte and no backslash (which
// testing/fstest refuses in a listing). io/fs names are not OS paths, so a
// colon is an ordinary character.
func cleanName(f *zip.File) (name string, isDir, ok bool) {
	name = f.Name
	isDir = f.Mode().IsDir()
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	if strings.HasSuffix(name, "/") {
		name, isDir = name[:len(name)-1], true
	}
	return name, isDir, name != "." && fs.ValidPath(name) && !strings.ContainsAny(name, "\x00\\")
}

func fileInfo(base string, f *zip.File, isDir bool) driver.FileInfo {
	fi := driver.FileInfo{FName: base, FModTime: f.Modified, FSys: &f.FileHeader}
	if isDir {
		fi.FMode = fs.ModeDir | 0o555
		return fi
	}
	fi.FSize = int64(min(f.UncompressedSize64, 1<<63-1))
	m := f.Mode()
	perm := m.Perm()
	if perm == 0 {
		perm = 0o444
	}
	fi.FMode = perm
	if m&fs.ModeSymlink != 0 {
		fi.FMode |= fs.ModeSymlink
	}
	return fi
}

// lookup finds name, an fs.ValidPath name other than ".".
func (a *Archive) lookup(name string) *entry {
	dir, base := fsname.Split(name)
	i, ok := slices.BinarySearchFunc(a.ents, name, func(e entry, _ string) int {
		return cmp.Or(strings.Compare(e.dir, dir), strings.Compare(e.base, base))
	})
	if !ok {
		return nil
	}
	return &a.ents[i]
}

// Stat describes the named file or directory. A symbolic link is described,
// not followed. Sys returns the member's *zip.FileHeader (nil for the root
// and for directories that only the names of members imply).
func (a *Archive) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		fi := a.root
		return &fi, nil
	}
	e := a.lookup(name)
	if e == nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	fi := e.info
	return &fi, nil
}

// ReadDir lists the named directory, sorted by name.
func (a *Archive) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	if name != "." {
		e := a.lookup(name)
		if e == nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
		}
		if !e.info.IsDir() {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: driver.ErrNotDir}
		}
	}
	// Children are contiguous: the index is sorted by directory first.
	lo, _ := slices.BinarySearchFunc(a.ents, name, func(e entry, dir string) int {
		return strings.Compare(e.dir, dir)
	})
	hi, _ := slices.BinarySearchFunc(a.ents[lo:], name, func(e entry, dir string) int {
		return cmp.Or(strings.Compare(e.dir, dir), -1)
	})
	hi += lo
	infos := make([]driver.FileInfo, hi-lo)
	list := make([]fs.DirEntry, hi-lo)
	for i := range infos {
		infos[i] = a.ents[lo+i].info
		list[i] = &infos[i]
	}
	return list, nil
}

// OpenBlob opens the named member for random access. A STORED member is a
// section of the archive's blob, read with no copy; a DEFLATE member is
// decompressed as it is read, and the blob returned implements io.Closer
// to give its decompressor back.
func (a *Archive) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: driver.ErrIsDir}
	}
	e := a.lookup(name)
	if e == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	b, err := a.openEntry(ctx, name, e)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return b, nil
}

// Method names, for messages.
var methodNames = map[uint16]string{
	1: "Shrink", 6: "Implode", 9: "Deflate64", 12: "bzip2", 14: "LZMA",
	19: "LZ77", 93: "Zstandard", 95: "XZ", 96: "JPEG", 97: "WavPack", 98: "PPMd", 99: "AES",
}

func (a *Archive) openEntry(ctx context.Context, name string, e *entry) (driver.Blob, error) {
	if e.info.IsDir() {
		return nil, driver.ErrIsDir
	}
	if e.info.FMode&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("symbolic link: links in zip archives are not followed: %w (%w)", driver.ErrUnsafePath, fs.ErrInvalid)
	}
	f := e.file
	if f.Flags&1 != 0 {
		return nil, fmt.Errorf("member is encrypted: %w", errors.ErrUnsupported)
	}
	usize, csize := f.UncompressedSize64, f.CompressedSize64
	if usize > uint64(a.lim.MaxFileSize) {
		return nil, driver.Limitf("declared size %d is over the limit of %d bytes (raise Options.Limits.MaxFileSize)", usize, a.lim.MaxFileSize)
	}
	switch f.Method {
	case zip.Store:
		if csize != usize {
			return nil, driver.Corruptf("stored member has compressed size %d and size %d", csize, usize)
		}
		if usize == 0 && f.CRC32 != 0 {
			return nil, driver.Corruptf("empty stored member: the directory says CRC-32 %08x", f.CRC32)
		}
	case zip.Deflate:
		if r := uint64(a.lim.MaxRatio); csize <= (1<<64-1)/r && usize > csize*r {
			return nil, driver.Limitf("declared size %d from %d compressed bytes is a ratio over the limit of %d:1 (raise Options.Limits.MaxRatio)",
				usize, csize, a.lim.MaxRatio)
		}
	default:
		m := methodNames[f.Method]
		if m != "" {
			m = " (" + m + ")"
		}
		return nil, fmt.Errorf("compression method %d%s: %w", f.Method, m, errors.ErrUnsupported)
	}
	big := f.Method == zip.Store && usize > maxStoredPrefetch
	if err := a.prefetch(ctx, e, big); err != nil {
		return nil, err
	}
	off, err := a.dataOffset(ctx, e)
	if err != nil {
		return nil, err
	}
	fi := e.info
	if f.Method == zip.Store {
		var b driver.Blob = driver.SectionBlob(a.blob, off, int64(usize), &fi)
		if big {
			b = &storedBlob{Blob: b}
		}
		// As archive/zip: a CRC-32 of 0 is checked only when a data
		// descriptor follows (flag bit 3), since writers that stream
		// without one may leave it unset.
		if f.CRC32 == 0 && f.Flags&8 == 0 || usize == 0 {
			return b, nil
		}
		return &checkedBlob{Blob: b, size: int64(usize), want: f.CRC32}, nil
	}
	return a.newDeflated(name, e, off, &fi), nil
}

// Request economy over remote blobs (driver.Prefetch does nothing for the
// others).
const (
	// tailPrefetch is what Open fetches from the end of the blob before
	// looking for the end records: the suffix size of package remote.
	tailPrefetch = 64 << 10
	// maxStoredPrefetch is the largest stored member fetched whole, with
	// its local header, when it is opened. A larger one may be an archive
	// read at random (a zip in a zip), so only its header is fetched at
	// open, and its data once it is read sequentially.
	maxStoredPrefetch = 1 << 20
	// seqReadMin is the size of a read from the start of a large stored
	// member taken as the start of a whole-file read.
	seqReadMin = 256 << 10
	// headerSlack covers a local extra field longer than the central one.
	headerSlack = 1 << 10
)

// A suffixGrower is a blob whose root can read more in its first request
// (remote.Blob).
type suffixGrower interface{ GrowSuffix(n int64) }

// prefetch asks for the local header of e and, unless headerOnly, the
// member's data with it: one request for both.
func (a *Archive) prefetch(ctx context.Context, e *entry, headerOnly bool) error {
	f := e.file
	hdrLen := int64(localHeaderLen+len(f.Name)+len(f.Extra)) + headerSlack
	n := hdrLen
	if !headerOnly {
		// The data, and a data descriptor, but not past the next entry.
		n = hdrLen + int64(min(f.CompressedSize64, 1<<62)) + 24
	}
	n = min(n, e.next-e.hdr, a.size-e.hdr)
	return driver.Prefetch(ctx, a.blob, e.hdr, n)
}

// A storedBlob is a large stored member. Once it is read sequentially, it
// asks for the rest of the member ahead, so that readahead below runs to
// the member's end and not past it; read at random (an archive inside the
// archive), it fetches only what is read.
type storedBlob struct {
	driver.Blob // the section of the archive
	mu          sync.Mutex
	next        int64 // where a sequential read would continue
	declared    bool
}

func (b *storedBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	b.mu.Lock()
	// A read that continues the last one, or a large one from the start
	// (a whole-file read), is sequential; format detection and archive
	// readers read small pieces at random.
	seq := !b.declared && (off > 0 && off == b.next || off == 0 && len(p) >= seqReadMin)
	b.next = off + int64(len(p))
	if seq {
		b.declared = true
	}
	b.mu.Unlock()
	if seq {
		size := b.Stat().Size()
		if err := driver.Prefetch(ctx, b.Blob, off, size-off); err != nil {
			return 0, err
		}
	}
	return b.Blob.ReadAt(ctx, p, off)
}

// Prefetch passes the hint to the archive's blob.
func (b *storedBlob) Prefetch(ctx context.Context, off, n int64) error {
	return driver.Prefetch(ctx, b.Blob, off, n)
}

// dataOffset reads the local header of e, as (*zip.File).DataOffset does
// but with the caller's context, and checks that the data stays clear of
// the next entry.
func (a *Archive) dataOffset(ctx context.Context, e *entry) (int64, error) {
	var b [localHeaderLen]byte
	if _, err := a.blob.ReadAt(ctx, b[:], e.hdr); err != nil {
		return 0, truncated("local file header", e.hdr, err)
	}
	le := binary.LittleEndian
	if le.Uint32(b[:]) != localHeaderSig {
		return 0, driver.Corruptf("no local file header at offset %d", e.hdr)
	}
	off := e.hdr + localHeaderLen + int64(le.Uint16(b[26:])) + int64(le.Uint16(b[28:]))
	end := off + int64(e.file.CompressedSize64)
	if end > e.next || end > a.size {
		return 0, driver.Corruptf("data [%d, %d) runs into the next entry or past the end (at %d)", off, end, min(e.next, a.size))
	}
	return off, nil
}

// Omitted lists the members whose names cannot be exposed (see the package
// documentation), with the offset of their local header. It implements
// driver.Omitter.
func (a *Archive) Omitted(ctx context.Context) ([]driver.Omission, error) {
	return slices.Clone(a.omitted), nil
}

// Unreachable returns the central directory entries that no name reaches:
// unsafe names, and the entries that the duplicate rule hides, in central
// directory order.
func (a *Archive) Unreachable() []*zip.File { return slices.Clone(a.unreachable) }

// As sets target, a **zip.Reader, to the archive/zip reader of the archive
// and reports whether it did. The reader reads the blob with the values of
// the context given to Open, without its cancellation; its File.Open
// follows archive/zip's rules, not this package's.
func (a *Archive) As(target any) bool {
	if t, ok := target.(**zip.Reader); ok {
		*t = a.r
		return true
	}
	return false
}
