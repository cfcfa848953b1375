package zipadapter

import (
	"archive/zip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// An Archive is a zip archive opened over a blob: a [driver.Tree] whose files
// are the archive's members. It is safe for concurrent use. See the package
// documentation for the naming rules and limits.
type Archive struct {
	blob driver.Blob
	size int64
	lim  vfs.Limits
	// cache holds the indexes of DEFLATE members (Options.Cache).
	cache *vfs.Cache
	key   string // names the archive in the index cache; "" for none

	dir     string           // the central directory's bytes
	recs    []record         // its records, in order
	ents    []entry          // grouped by parent directory, sorted by name in each group
	names   string           // the base names of ents, in their order
	dirs    map[string]int32 // directory name ("." for the root) to group
	kids    []int32          // group d is ents[kids[d]:kids[d+1]]
	hidden  []int32          // the records no name reaches, in order
	omitted []driver.Omission

	// zr is the archive/zip reader of the archive, made when As or
	// Unreachable first asks for it; ctx has the values of the context of
	// Open, without its cancellation.
	zrOnce sync.Once
	zr     *zip.Reader
	zrErr  error
	ctx    context.Context
}

var _ driver.Tree = (*Archive)(nil)

// Open reads the central directory of the zip archive in b and returns the
// archive. ctx bounds the reads Open does; later reads take the context of
// their own call. o may be nil. The archive does not own b: b must stay
// readable while the archive and the blobs it returned are used, and the
// caller closes it.
//
// Errors match driver.ErrCorrupt for a malformed archive and driver.ErrLimit
// when o's limits are exceeded; a central directory of more than 4 GiB
// gives one matching errors.ErrUnsupported.
func Open(ctx context.Context, b driver.Blob, o *vfs.Options) (*Archive, error) {
	return open(ctx, b, o, vfs.DiskIndex{})
}

// open is Open with the place where the central directory is kept across
// processes: a directory kept there is parsed as one read from the blob
// is, and the blob is then read only for members; one that does not parse
// is removed. A directory read from the blob is kept there once the
// archive is open.
func open(ctx context.Context, b driver.Blob, o *vfs.Options, disk vfs.DiskIndex) (*Archive, error) {
	lim := o.EffectiveLimits()
	size := b.Stat().Size()
	if size < 0 {
		return nil, driver.Corruptf("negative archive size %d", size)
	}
	if kept, ok := loadDir(ctx, disk, size, lim); ok {
		a, err := build(ctx, b, o, size, kept.end, kept.read, lim)
		if err == nil {
			return a, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		disk.Remove()
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
	read := func(ctx context.Context, p []byte, off int64) (int, error) {
		return b.ReadAt(ctx, p, end.dirStart+off)
	}
	a, err := build(ctx, b, o, size, end, read, lim)
	if err != nil {
		return nil, err
	}
	storeDir(ctx, disk, a, end, lim)
	return a, nil
}

// build reads the central directory that end describes through read and
// makes the archive of its records.
func build(ctx context.Context, b driver.Blob, o *vfs.Options, size int64, end *endRecord, read dirReader, lim vfs.Limits) (*Archive, error) {
	dir, recs, dirEnd, err := readDirectory(ctx, read, size, end, lim)
	if err != nil {
		return nil, err
	}
	name := func(i int) string { h, _ := parseHeader(dir, recs[i].pos); return h.name }
	if err := checkOverlap(recs, end.dirStart, dirEnd, name); err != nil {
		return nil, err
	}
	a := &Archive{
		blob:  b,
		size:  size,
		lim:   lim,
		cache: o.EffectiveCache(),
		dir:   dir,
		recs:  recs,
		ctx:   context.WithoutCancel(ctx),
	}
	a.index()
	return a, nil
}

// openReaderAt is the io.ReaderAt of the *zip.Reader: it reads the blob
// with the values of the context of Open, without its cancellation.
type openReaderAt struct {
	b   driver.Blob
	ctx context.Context
}

func (r *openReaderAt) ReadAt(p []byte, off int64) (int, error) {
	return r.b.ReadAt(r.ctx, p, off)
}

// Stat describes the named file or directory. A symbolic link is described,
// not followed. Sys returns the member's *zip.FileHeader (nil for the root
// and for directories that only the names of members imply).
func (a *Archive) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &driver.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555}, nil
	}
	e := a.lookup(name)
	if e == nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return &fileInfo{a, e}, nil
}

// ReadDir lists the named directory, sorted by name.
func (a *Archive) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	d := int32(0)
	if name != "." {
		e := a.lookup(name)
		if e == nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
		}
		if e.sub < 0 {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: driver.ErrNotDir}
		}
		d = e.sub
	}
	group := a.children(d)
	infos := make([]fileInfo, len(group))
	list := make([]fs.DirEntry, len(group))
	for i := range group {
		infos[i] = fileInfo{a, &group[i]}
		list[i] = &infos[i]
	}
	return list, nil
}

// OpenBlob opens the named member for random access. A STORED member is a
// section of the archive's blob, read with no copy; a compressed member
// is decompressed as it is read (DEFLATE from checkpoints, the other
// methods forward), and the blob returned implements io.Closer to give
// its decompressor back. A member that pipefs does not decode (PPMd,
// encrypted) gives an error matching errors.ErrUnsupported that names the
// method.
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
	0: "STORED", 1: "Shrink", 2: "Reduce", 3: "Reduce", 4: "Reduce", 5: "Reduce", 6: "Implode",
	8: "DEFLATE", 9: "Deflate64", 10: "IBM TERSE", 12: "bzip2", 14: "LZMA", 16: "IBM z/OS CMPSC",
	18: "IBM TERSE", 19: "LZ77", 20: "Zstandard", 93: "Zstandard", 94: "MP3", 95: "XZ", 96: "JPEG",
	97: "WavPack", 98: "PPMd", 99: "AES",
}

func (a *Archive) openEntry(ctx context.Context, name string, e *entry) (driver.Blob, error) {
	if e.sub >= 0 {
		return nil, driver.ErrIsDir
	}
	fi := &fileInfo{a, e}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("symbolic link: links in zip archives are not followed: %w (%w)", driver.ErrUnsafePath, fs.ErrInvalid)
	}
	return a.openData(ctx, name, e, fi)
}

// openData opens the data of the file entry e, described by fi: the
// content of a member, or the target of a symbolic link (see ReadLink).
func (a *Archive) openData(ctx context.Context, name string, e *entry, fi *fileInfo) (driver.Blob, error) {
	h := a.header(e.rec)
	if h.flags&1 != 0 {
		return nil, encrypted(&h)
	}
	usize, csize := h.usize, h.csize
	if usize > uint64(a.lim.MaxFileSize) {
		return nil, driver.Limitf("declared size %d is over the limit of %d bytes (raise Options.Limits.MaxFileSize)", usize, a.lim.MaxFileSize)
	}
	c, coded := codecs[h.method]
	switch {
	case h.method == zip.Store:
		if csize != usize {
			return nil, driver.Corruptf("stored member has compressed size %d and size %d", csize, usize)
		}
		if usize == 0 && h.crc != 0 {
			return nil, driver.Corruptf("empty stored member: the directory says CRC-32 %08x", h.crc)
		}
	case h.method == zip.Deflate:
		if r := uint64(a.lim.MaxRatio); csize <= (1<<64-1)/r && usize > csize*r {
			return nil, driver.Limitf("declared size %d from %d compressed bytes is a ratio over the limit of %d:1 (raise Options.Limits.MaxRatio)",
				usize, csize, a.lim.MaxRatio)
		}
	case coded:
		// These compress long runs far beyond DEFLATE's 1032:1 (Deflate64
		// too, with its 65538-byte matches): the ratio applies past
		// Limits.RatioFloor, as for a .bz2, .xz or .zst file.
		if usize > uint64(a.lim.MaxOutputSlack(int64(csize))) {
			return nil, a.lim.RatioError(fmt.Sprintf("%s member, whose header declares %d bytes,", c.name, usize), int64(csize))
		}
		if usize == 0 && h.crc != 0 {
			return nil, driver.Corruptf("empty %s member: the directory says CRC-32 %08x", c.name, h.crc)
		}
	default:
		return nil, refuse(&h)
	}
	rec := &a.recs[e.rec]
	// A stored member opened to look at its first bytes (a deep
	// listing's sniff, with a driver.Unverified context) is not fetched
	// whole: it is read like a large one, only as far as it is read.
	sniff := h.method == zip.Store && driver.IsUnverified(ctx)
	big := h.method == zip.Store && (usize > maxStoredPrefetch || sniff)
	// A sniff reads the header and then the first bytes of the data:
	// both come in the block that the header's read fetches, so the
	// header alone is not asked for first.
	if !sniff {
		if err := a.prefetch(ctx, &h, rec, big); err != nil {
			return nil, err
		}
	}
	off, err := a.dataOffset(ctx, &h, rec)
	if err != nil {
		return nil, err
	}
	if h.method == zip.Store {
		var b driver.Blob = driver.SectionBlob(a.blob, off, int64(usize), fi)
		if big {
			b = &storedBlob{Blob: b}
		}
		// As archive/zip: a CRC-32 of 0 is checked only when a data
		// descriptor follows (flag bit 3), since writers that stream
		// without one may leave it unset.
		if h.crc == 0 && h.flags&8 == 0 || usize == 0 {
			return b, nil
		}
		return &checkedBlob{Blob: b, size: int64(usize), want: h.crc}, nil
	}
	if coded && c.resume != nil {
		return a.newResumable(c.resume(a.lim), c.name, &h, off, fi), nil
	}
	if coded {
		return a.newCoded(ctx, c, &h, off, fi)
	}
	return a.newDeflated(name, &h, rec, off, fi), nil
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
	// member taken as the start of a whole-file read, and the bytes that
	// reads in order must have read before they are taken as one.
	seqReadMin = 256 << 10
	// headerSlack covers a local extra field longer than the central one.
	headerSlack = 1 << 10
)

// A suffixGrower is a blob whose root can read more in its first request
// (remote.Blob).
type suffixGrower interface{ GrowSuffix(n int64) }

// prefetch asks for the local header of the member of h and rec and,
// unless headerOnly, the member's data with it: one request for both. The
// ranges are what the format says the reads need, so that a remote
// archive fetches them exactly: the header alone is as long as the
// central record says (its first 30 bytes are all dataOffset reads); with
// the data, the header may have a longer extra field, so the range runs
// on by headerSlack, but never into the next entry.
func (a *Archive) prefetch(ctx context.Context, h *header, rec *record, headerOnly bool) error {
	hdrLen := int64(localHeaderLen + len(h.name) + len(h.extra))
	n := hdrLen
	if !headerOnly {
		// The data, and a data descriptor, but not past the next entry.
		n = hdrLen + headerSlack + int64(min(h.csize, 1<<62)) + 24
	}
	n = min(n, rec.next-rec.hdr, a.size-rec.hdr)
	return driver.Prefetch(ctx, a.blob, rec.hdr, n)
}

// A storedBlob is a large stored member. Once it is read sequentially, it
// asks for the rest of the member ahead, so that readahead below runs to
// the member's end and not past it; read at random (an archive inside the
// archive), it fetches only what is read. It takes no lock: its state is a
// hint, and two reads that race may both see themselves as sequential,
// which asks for the same bytes twice.
type storedBlob struct {
	driver.Blob              // the section of the archive
	next        atomic.Int64 // where a sequential read would continue
	run         atomic.Int64 // the bytes read in order up to next
	declared    atomic.Bool
}

func (b *storedBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if b.declared.Load() {
		return b.Blob.ReadAt(ctx, p, off)
	}
	// Reads in order, seqReadMin bytes of them, or a read that large
	// from the start (a whole-file read), are sequential; format
	// detection and archive readers read small pieces at random, and a
	// few of them in order (an inner archive's local header, then the
	// first bytes of its member) are no whole-file read.
	run := int64(len(p))
	cont := off > 0 && off == b.next.Load()
	if cont {
		run += b.run.Load()
	}
	seq := run >= seqReadMin && (cont || off == 0)
	b.run.Store(run)
	b.next.Store(off + int64(len(p)))
	if seq && b.declared.CompareAndSwap(false, true) {
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

// dataOffset reads the local header of the member of h and rec, as
// (*zip.File).DataOffset does but with the caller's context, and checks
// that the data stays clear of the next entry.
func (a *Archive) dataOffset(ctx context.Context, h *header, rec *record) (int64, error) {
	var b [localHeaderLen]byte
	if _, err := a.blob.ReadAt(ctx, b[:], rec.hdr); err != nil {
		return 0, truncated("local file header", rec.hdr, err)
	}
	le := binary.LittleEndian
	if le.Uint32(b[:]) != localHeaderSig {
		return 0, driver.Corruptf("no local file header at offset %d", rec.hdr)
	}
	off := rec.hdr + localHeaderLen + int64(le.Uint16(b[26:])) + int64(le.Uint16(b[28:]))
	end := off + int64(h.csize)
	if end > rec.next || end > a.size {
		return 0, driver.Corruptf("data [%d, %d) runs into the next entry or past the end (at %d)", off, end, min(rec.next, a.size))
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
// directory order. They are files of the archive/zip reader of [Archive.As],
// which is made on the first call; it is nil if that reader fails (the
// blob fails to read the central directory again).
func (a *Archive) Unreachable() []*zip.File {
	r, err := a.zipReader()
	if err != nil {
		return nil
	}
	files := make([]*zip.File, len(a.hidden))
	for i, rec := range a.hidden {
		files[i] = r.File[rec]
	}
	return files
}

// As sets target, a **zip.Reader, to the archive/zip reader of the archive
// and reports whether it did. The reader is made on the first call, which
// reads the central directory again; it reads the blob with the values of
// the context given to Open, without its cancellation, and its File.Open
// follows archive/zip's rules, not this package's. As reports false if the
// reader fails.
func (a *Archive) As(target any) bool {
	t, ok := target.(**zip.Reader)
	if !ok {
		return false
	}
	r, err := a.zipReader()
	if err != nil {
		return false
	}
	*t = r
	return true
}

// zipReader returns the archive/zip reader of the archive, made once. It
// reads what Open read: the same records, since Open stops where
// archive/zip stops.
func (a *Archive) zipReader() (*zip.Reader, error) {
	a.zrOnce.Do(func() {
		r, err := zip.NewReader(&openReaderAt{a.blob, a.ctx}, a.size)
		if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
			a.zrErr = err
			return
		}
		if len(r.File) != len(a.recs) {
			a.zrErr = driver.Corruptf("central directory has %d records, archive/zip read %d", len(a.recs), len(r.File))
			return
		}
		a.zr = r
	})
	return a.zr, a.zrErr
}
