package taradapter

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/blobread"
	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/vfs"
)

// An Archive is a tar archive read through a blob: a [driver.Tree] whose
// files are the archive's members. It is safe for concurrent use. See the
// package documentation for the naming, link and duplicate rules.
type Archive struct {
	blob driver.Blob
	lim  vfs.Limits
	opts *vfs.Options // for naming what data that is not a tar looks like
	sh   *shared
}

var (
	_ driver.Tree    = (*Archive)(nil)
	_ driver.Omitter = (*Archive)(nil)
)

// shared holds the index of one archive, built once at first use and
// shared by every Archive over the same archive opened with the same
// vfs.Cache (see cache.go).
type shared struct {
	mu   sync.Mutex
	done atomic.Pointer[built]

	c      *vfs.Cache    // the cache of the pipeline
	st     *state        // c's state
	key    cacheKey      // in c, when cached is set; set under st.mu
	cached atomic.Bool   // sh is (or was) an entry of c
	url    string        // the archive's pipeline, to cache the index once built; "" when cached already or never
	disk   vfs.DiskIndex // where the index is kept across processes
}

// built is the outcome of a scan: an index, or the error that a scan of
// the same bytes under the same limits would give again.
type built struct {
	idx *index
	err error
}

// Open scans the tar archive in b and returns it. ctx bounds the reads
// that Open does; later reads take the context of their own call. o may
// be nil. The archive does not own b: b must stay readable while the
// archive and the blobs it returned are used, and the caller closes it.
// Open builds a private index; the pipefs.tar: adapter shares one index
// per archive in the pipeline's vfs.Cache instead.
//
// Errors match driver.ErrCorrupt for a malformed archive and driver.ErrLimit
// when o's limits are exceeded.
func Open(ctx context.Context, b driver.Blob, o *vfs.Options) (*Archive, error) {
	c := o.EffectiveCache()
	a := &Archive{blob: b, lim: o.EffectiveLimits(), opts: o, sh: &shared{c: c, st: stateOf(c)}}
	if _, err := a.index(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// openShared returns an Archive over b whose index comes from o's
// vfs.Cache when url is not empty. It does no I/O.
//
// The cache key holds b's size, which a decompressed stream learns only
// by decoding itself to its end. When it is not known yet, the Archive
// gets an index of its own, which its scan (that decodes the stream once
// and learns the size) adds to the cache for later opens.
func openShared(b driver.Blob, url string, o *vfs.Options) *Archive {
	return openDisk(b, url, o, vfs.DiskIndex{})
}

// openDisk is openShared with a place on disk where the index is kept
// across processes.
func openDisk(b driver.Blob, url string, o *vfs.Options, disk vfs.DiskIndex) *Archive {
	a := &Archive{blob: b, lim: o.EffectiveLimits(), opts: o}
	c := o.EffectiveCache()
	switch {
	case url == "":
		a.sh = &shared{c: c, st: stateOf(c)}
	case !sizeKnown(b.Stat()):
		a.sh = &shared{c: c, st: stateOf(c), url: url}
	default:
		a.sh = get(c, keyOf(url, b, a.lim))
	}
	a.sh.setDisk(disk)
	return a
}

// setDisk sets where sh's index is kept across processes, unless it has
// a place already.
func (sh *shared) setDisk(d vfs.DiskIndex) {
	sh.mu.Lock()
	if !sh.disk.Enabled() {
		sh.disk = d
	}
	sh.mu.Unlock()
}

// load returns the members that a scan of the archive found, as kept on
// disk, or nil. A kept index that does not decode is removed.
func (a *Archive) load(ctx context.Context) *scanned {
	size := int64(-1)
	if info := a.blob.Stat(); sizeKnown(info) {
		size = info.Size()
	}
	b, ok := a.sh.disk.Load(ctx, maxMetaBytes+int64(a.lim.MaxEntries)*256)
	if !ok {
		return nil
	}
	sc, err := decodeScanned(b, size, a.lim)
	if err != nil {
		a.sh.disk.Remove()
		return nil
	}
	return sc
}

// sizeKnown reports whether info's Size answers without decoding
// anything (see driver.SizeKnower).
func sizeKnown(info fs.FileInfo) bool {
	k, ok := info.(driver.SizeKnower)
	return !ok || k.SizeKnown()
}

// index returns the archive's index, scanning the archive if no Archive
// sharing it has done so yet. A scan that fails because of ctx or the
// blob (an I/O error) is retried by the next call; a malformed archive or
// a limit fails every call the same way.
func (a *Archive) index(ctx context.Context) (*index, error) {
	if r := a.sh.done.Load(); r != nil {
		return r.idx, r.err
	}
	a.sh.mu.Lock()
	defer a.sh.mu.Unlock()
	if r := a.sh.done.Load(); r != nil {
		return r.idx, r.err
	}
	if sc := a.load(ctx); sc != nil {
		a.sh.st.loads.Add(1)
		return a.built(buildIndex(sc)), nil
	}
	a.sh.st.scans.Add(1)
	size := int64(-1) // read to io.EOF: asking would decode a stream twice
	if info := a.blob.Stat(); sizeKnown(info) {
		if size = info.Size(); size < 0 {
			return nil, driver.Corruptf("negative archive size %d", size)
		}
	}
	r := a.scanReader(ctx)
	sc, err := scan(ctx, r, size, a.lim)
	if f, ok := r.(*blobread.Forward); ok {
		var below *belowError
		switch {
		case err != nil:
		case sc.end != nil && errors.As(sc.end.err, &below):
			cutAt(sc, f.Pos()) // the stream failed: it has no end to drain to
		default:
			err = a.drain(ctx, f, sc)
		}
		f.Close()
	}
	var below *belowError
	if errors.Is(err, driver.ErrCorrupt) && ctx.Err() == nil && !errors.As(err, &below) {
		// The first header is bad: say what the data looks like.
		detail := strings.TrimPrefix(err.Error(), driver.ErrCorrupt.Error()+": ")
		err = vfs.NotFormat(ctx, a.opts, a.blob, Scheme, "a tar archive", detail)
	}
	if err != nil {
		if errors.Is(err, driver.ErrCorrupt) || errors.Is(err, driver.ErrLimit) {
			a.sh.done.Store(&built{err: err})
		}
		return nil, err
	}
	if sc.end == nil && a.sh.disk.Enabled() {
		a.sh.disk.Store(ctx, encodeScanned(sc))
	}
	return a.built(buildIndex(sc)), nil
}

// drain reads the decompressed stream below the archive on to its end
// after the scan, so that the checksums the stream carries at its end
// (gzip's CRC-32, a zstd frame's checksum, bzip2's and xz's checks) are
// verified by the listing itself: a damaged stream ends the listing with
// the error that says so, after the members already found, as bsdtar
// reports it. Errors of the context and the input fail the scan.
func (a *Archive) drain(ctx context.Context, f *blobread.Forward, sc *scanned) error {
	err := f.Drain()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case !errors.Is(err, driver.ErrCorrupt):
		return err
	}
	var below *belowError
	switch {
	case sc.end == nil:
		sc.end = &earlyEnd{off: -1, err: fmt.Errorf("the compressed data of the archive is damaged, and no member read from it can be verified: %w", err)}
	case !errors.As(sc.end.err, &below):
		// Bytes that are no header, where the stream below fails its
		// checks: the damage is the stream's.
		sc.end.err = fmt.Errorf("%w, in compressed data that is damaged: %w", sc.end.err, err)
	}
	return nil
}

// cutAt marks the member whose data runs past present, the bytes that the
// stream below gave before it failed, as cut short, and says so in the
// listing's early end: the scan skips member data without reading it,
// so the failure meets it at the next header.
func cutAt(sc *scanned, present int64) {
	for i := range sc.members {
		m := &sc.members[i]
		if m.packed == 0 || m.dataOff >= present || m.dataOff+m.packed <= present {
			continue
		}
		m.short = true
		cause := sc.end.err
		var below *belowError
		if errors.As(cause, &below) {
			cause = below.err
		}
		sc.end = &earlyEnd{off: m.hdrOff, name: m.hdr.Name, err: fmt.Errorf(
			"the readable data ends inside member %q (at byte %d of its %d; the member's header is at offset %d): %w",
			m.hdr.Name, present-m.dataOff, m.packed, m.hdrOff, cause)}
		return
	}
}

// scanReader returns what the scan reads the archive through: the blob's
// ReadAt, or, for a decompressed stream, one forward stream of it, so that
// the pass that finds the members decodes the way a sequential copy does
// (DEFLATE on two cores).
func (a *Archive) scanReader(ctx context.Context) io.ReaderAt {
	st, ok := a.blob.(driver.Streamer)
	if _, compressed := a.blob.(driver.Compressed); !ok || !compressed {
		return driver.ReaderAt(ctx, a.blob)
	}
	return blobread.NewForward(ctx, a.blob, st)
}

// built records idx as sh's index, and caches it.
func (a *Archive) built(idx *index) *index {
	a.sh.done.Store(&built{idx: idx})
	if a.sh.url != "" && sizeKnown(a.blob.Stat()) {
		a.sh.add(keyOf(a.sh.url, a.blob, a.lim))
	}
	a.sh.charge(len(idx.ents))
	return idx
}

// maxHops bounds the symbolic links followed to resolve one name, as
// Linux's MAXSYMLINKS does: a loop fails instead of spinning.
const maxHops = 40

var (
	errEscape = fmt.Errorf("symbolic link leads out of the archive: %w (%w)", driver.ErrUnsafePath, fs.ErrInvalid)
	errLoop   = driver.Corruptf("more than %d symbolic links to follow (a loop?)", maxHops)
)

// resolve returns the entry that name (an fs.ValidPath name) leads to,
// following symbolic links in every element; nil means the root. When
// the last element is a link that leaves the archive, it returns that
// link's entry with an error matching driver.ErrUnsafePath.
func (x *index) resolve(name string) (*entry, error) {
	if name == "." {
		return nil, nil
	}
	// Fast path: names with no link in them. The ancestors of an entry
	// are directories (see buildIndex), so a hit is the answer.
	if e := x.lookup(name); e != nil && e.kind != kindSymlink {
		return e, nil
	}
	comps := strings.Split(name, "/")
	cur := "."
	var e *entry
	for hops := 0; len(comps) > 0; {
		p := fsname.Join(cur, comps[0])
		comps = comps[1:]
		if e = x.lookup(p); e == nil {
			return nil, fs.ErrNotExist
		}
		switch e.kind {
		case kindDir:
			cur = p
			continue
		case kindSymlink:
		default:
			if len(comps) > 0 {
				return nil, fmt.Errorf("%q is not a directory: %w", p, fs.ErrNotExist)
			}
			return e, nil
		}
		if hops++; hops > maxHops {
			return nil, errLoop
		}
		if e.link == "" {
			return nil, fmt.Errorf("symbolic link %q is empty: %w", p, fs.ErrNotExist)
		}
		escape := func() (*entry, error) {
			if len(comps) == 0 {
				return e, errEscape
			}
			return nil, errEscape
		}
		if strings.HasPrefix(e.link, "/") {
			return escape()
		}
		var stack []string
		if cur != "." {
			stack = strings.Split(cur, "/")
		}
		for _, t := range strings.Split(e.link, "/") {
			switch t {
			case "", ".":
			case "..":
				if len(stack) == 0 {
					return escape()
				}
				stack = stack[:len(stack)-1]
			default:
				stack = append(stack, t)
			}
		}
		comps, cur, e = append(stack, comps...), ".", nil
	}
	return e, nil
}

// named returns a copy of e's description (the root's when e is nil)
// named base.
func (x *index) named(e *entry, base string) *driver.FileInfo {
	fi := x.root
	if e != nil {
		fi = e.info
	}
	fi.FName = base
	return &fi
}

func baseName(name string) string {
	_, b := fsname.Split(name)
	return b
}

// Stat describes the named file or directory, following symbolic links
// that stay inside the archive. A link that leaves the archive is
// described as the link it is (fs.ModeSymlink). Sys returns the member's
// *tar.Header; it is nil for the root (unless the archive has a "./"
// entry) and for directories that only the names of members imply.
func (a *Archive) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	x, err := a.index(ctx)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	e, err := x.resolve(name)
	if err != nil && (e == nil || !errors.Is(err, driver.ErrUnsafePath)) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: x.notFound(err)}
	}
	return x.named(e, baseName(name)), nil
}

// ReadDir lists the named directory, sorted by name. Links are listed as
// links (their Info describes the link, not its target).
func (a *Archive) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	x, err := a.index(ctx)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	e, err := x.resolve(name)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: x.notFound(err)}
	}
	dir := "."
	if e != nil {
		if e.kind != kindDir {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: driver.ErrNotDir}
		}
		dir = fsname.Join(e.dir, e.base)
	}
	ents := x.children(dir)
	infos := make([]driver.FileInfo, len(ents))
	list := make([]fs.DirEntry, len(ents))
	for i := range ents {
		infos[i] = ents[i].info
		list[i] = &infos[i]
	}
	return list, nil
}

// OpenBlob opens the named member for random access, following symbolic
// links that stay inside the archive and hard links. A member is a
// section of the archive's blob, read with no copy; a sparse member reads
// its data regions from the archive and its holes as zeros.
func (a *Archive) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	x, err := a.index(ctx)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	e, err := x.resolve(name)
	if err == nil {
		var b driver.Blob
		if b, err = a.openEntry(x, e, baseName(name)); err == nil {
			return b, nil
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: x.notFound(err)}
}

// notFound adds to err, when it matches fs.ErrNotExist and the listing of
// the archive ended early, where and why it ended: the name may be in
// the part that could not be read. The result matches both.
func (x *index) notFound(err error) error {
	if x.end == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fmt.Errorf("%w; the archive's listing ends early, at offset %d: %w", err, x.end.off, x.end.err)
}

func (a *Archive) openEntry(x *index, e *entry, base string) (driver.Blob, error) {
	if e == nil || e.kind == kindDir {
		return nil, driver.ErrIsDir
	}
	switch e.kind {
	case kindSpecial:
		return nil, fmt.Errorf("%s is not a regular file and has no data: %w", typeName(e.info.FMode), errors.ErrUnsupported)
	case kindBroken:
		return nil, driver.Corruptf("hard link to %q, which is not a file earlier in the archive", e.link)
	}
	if e.err != nil {
		return nil, e.err
	}
	info := x.named(e, base)
	if info.FSize > a.lim.MaxFileSize {
		return nil, driver.Limitf("size %d is over the limit of %d bytes (raise Options.Limits.MaxFileSize)", info.FSize, a.lim.MaxFileSize)
	}
	if e.frags != nil {
		return &sparseBlob{parent: a.blob, off: e.off, frags: e.frags, info: info}, nil
	}
	return driver.SectionBlob(a.blob, e.off, info.FSize, info), nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	}
	return "special file"
}

// Unreachable returns the headers that no name reaches, in archive order
// as far as the duplicate rule allows: unsafe names, entries hidden by a
// later one of the same name or by a directory, replaced "./" entries. It
// scans the archive if that was not done yet.
func (a *Archive) Unreachable(ctx context.Context) ([]*tar.Header, error) {
	x, err := a.index(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Clone(x.unreachable), nil
}

// Omitted lists the members that no name reaches because their name is
// not a valid io/fs name, in archive order, and, when the listing ended
// early (at bytes that cannot be a tar header, inside a member whose data
// the archive does not hold whole, or at a damaged stream below), one
// last Omission with an empty Name at the offset where it ended (the
// header of a member cut short; -1 when the stream below fails its checks
// past the archive's end), whose Reason says why and names the member cut
// short, and whose Err is the error: members after that point, if any,
// are not listed, and a member cut short fails to open. It scans the
// archive if that was not done yet.
func (a *Archive) Omitted(ctx context.Context) ([]driver.Omission, error) {
	x, err := a.index(ctx)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(x.omitted)
	if e := x.end; e != nil {
		reason := "the listing ends here: " + e.err.Error()
		if e.name != "" {
			reason = e.err.Error()
		}
		out = append(out, driver.Omission{Offset: e.off, Reason: reason, Err: e.err})
	}
	return out, nil
}

// GlobalHeaders returns the pax global headers of the archive, in order.
// Their records are not merged into the members' headers (archive/tar
// does not merge them either).
func (a *Archive) GlobalHeaders(ctx context.Context) ([]*tar.Header, error) {
	x, err := a.index(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Clone(x.globals), nil
}

// sparseBlob reads a sparse member: data regions from the archive, holes
// as zeros.
type sparseBlob struct {
	parent driver.Blob
	off    int64 // offset of the packed data in parent
	frags  []fragment
	info   fs.FileInfo
}

func (b *sparseBlob) Stat() fs.FileInfo { return b.info }

func (b *sparseBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: b.info.Name(), Err: fs.ErrInvalid}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	size := b.info.Size()
	if off >= size {
		return 0, io.EOF
	}
	end := off + min(int64(len(p)), size-off)
	i := sort.Search(len(b.frags), func(i int) bool { return b.frags[i].Offset+b.frags[i].Length > off })
	for pos := off; pos < end; {
		if i < len(b.frags) && b.frags[i].Offset <= pos {
			f := b.frags[i]
			k := min(end, f.Offset+f.Length) - pos
			dst := p[pos-off : pos-off+k]
			n, err := b.parent.ReadAt(ctx, dst, b.off+f.Packed+pos-f.Offset)
			if n < len(dst) {
				if err == nil || err == io.EOF {
					err = driver.Corruptf("%s: truncated: sparse data at %d ends early", b.info.Name(), b.off+f.Packed)
				}
				return int(pos-off) + n, err
			}
			pos += k
			i++
			continue
		}
		next := end
		if i < len(b.frags) {
			next = min(end, b.frags[i].Offset)
		}
		clear(p[pos-off : next-off])
		pos = next
	}
	n := int(end - off)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
