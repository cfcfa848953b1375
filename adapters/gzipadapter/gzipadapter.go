package gzipadapter

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/blobread"
	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/internal/inflate"
	"github.com/pipefs/pipefs/internal/lazysize"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "gzip", OpenFile: open, Options: (*Options)(nil), Extensions: []string{".gz", ".tgz"}, Stream: true, DecodeHead: DecodeHead})
	vfs.RegisterFormat(&vfs.Format{Name: "gzip", Adapter: "gzip:", Input: vfs.KindFile, Magic: "\x1f\x8b\x08"})
}

// Options are the options of the gzip adapter, set under the "gzip" key
// of vfs.Options.Schemes.
type Options struct {
	// Spacing is the distance in output bytes between the checkpoints of
	// the index; 0 means inflate.DefaultSpacing (1 MiB), and a smaller
	// value is rounded up to 64 KiB. Closer checkpoints make a random
	// read decode less, and the index larger (about 32 KiB a checkpoint).
	Spacing int64
}

const (
	flagText    = 1 << 0
	flagHCRC    = 1 << 1
	flagExtra   = 1 << 2
	flagName    = 1 << 3
	flagComment = 1 << 4
	flagReserve = 0xe0
	maxExtra    = 64 << 10
)

var errNotGzip = errors.New("not a gzip member")

// readHeader parses the member header at off and returns it with the
// offset of its DEFLATE data. The header's Name and Comment are decoded
// from ISO 8859-1 when they are not UTF-8, and its ModTime is zero when
// MTIME is unset.
func readHeader(ctx context.Context, src driver.Blob, off, size int64, maxName int) (*gzip.Header, int64, error) {
	sr := io.NewSectionReader(driver.ReaderAt(ctx, src), off, size-off)
	h := new(gzip.Header)
	n, err := parseHeader(bufio.NewReaderSize(sr, 512), off, maxName, h)
	if err != nil {
		return nil, 0, err
	}
	return h, off + n, nil
}

// parseHeader reads the member header at offset off of the input from br
// and returns its length. It fills h, if not nil; with h nil, the name and
// comment are checked and skipped. It returns errNotGzip when the input
// ends or holds something else than a gzip magic number at off, and the
// errors of br unchanged.
func parseHeader(br *bufio.Reader, off int64, maxName int, h *gzip.Header) (int64, error) {
	var crc uint32
	var n int64
	read := func(p []byte) error {
		k, err := io.ReadFull(br, p)
		n += int64(k)
		crc = crc32.Update(crc, crc32.IEEETable, p[:k])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return driver.Corruptf("gzip header at %d is truncated", off)
		}
		return err
	}
	fixed, err := br.Peek(10)
	if len(fixed) < 2 || fixed[0] != 0x1f || fixed[1] != 0x8b {
		if err == nil || err == io.EOF {
			return 0, errNotGzip
		}
		return 0, err
	}
	if err == io.EOF {
		return 0, driver.Corruptf("gzip header at %d is truncated", off)
	}
	if err != nil {
		return 0, err
	}
	n, crc = 10, crc32.Update(0, crc32.IEEETable, fixed)
	if fixed[2] != 8 {
		return 0, driver.Corruptf("gzip member at %d: compression method %d, want 8 (deflate)", off, fixed[2])
	}
	flg := fixed[3]
	if flg&flagReserve != 0 {
		return 0, driver.Corruptf("gzip member at %d: reserved flag bits %#02x set", off, flg&flagReserve)
	}
	if h != nil {
		h.OS = fixed[9]
		if t := binary.LittleEndian.Uint32(fixed[4:8]); t != 0 {
			h.ModTime = time.Unix(int64(t), 0)
		}
	}
	br.Discard(10)
	if flg&flagExtra != 0 {
		var xl [2]byte
		if err := read(xl[:]); err != nil {
			return 0, err
		}
		// FEXTRA is at most 64 KiB by construction (a 16-bit length).
		extra := make([]byte, binary.LittleEndian.Uint16(xl[:]))
		if err := read(extra); err != nil {
			return 0, err
		}
		if h != nil {
			h.Extra = extra
		}
	}
	zstring := func(what string) (string, error) {
		var b []byte
		for i := 0; ; i++ {
			c, err := br.ReadByte()
			if err != nil {
				if err == io.EOF {
					err = driver.Corruptf("gzip header at %d is truncated in its %s", off, what)
				}
				return "", err
			}
			n++
			crc = crc32.Update(crc, crc32.IEEETable, []byte{c})
			if c == 0 {
				break
			}
			// Cap what the header can make us hold.
			if i >= maxName {
				return "", driver.Limitf("gzip %s at %d is longer than Limits.MaxNameLength (%d)", what, off, maxName)
			}
			if h != nil {
				b = append(b, c)
			}
		}
		if utf8.Valid(b) {
			return string(b), nil
		}
		r := make([]rune, len(b)) // ISO 8859-1
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), nil
	}
	if flg&flagName != 0 {
		name, err := zstring("name")
		if err != nil {
			return 0, err
		}
		if h != nil {
			h.Name = name
		}
	}
	if flg&flagComment != 0 {
		comment, err := zstring("comment")
		if err != nil {
			return 0, err
		}
		if h != nil {
			h.Comment = comment
		}
	}
	if flg&flagHCRC != 0 {
		want := uint16(crc)
		var hc [2]byte
		if err := read(hc[:]); err != nil {
			return 0, err
		}
		if got := binary.LittleEndian.Uint16(hc[:]); got != want {
			return 0, driver.Corruptf("gzip member at %d: header CRC %04x, computed %04x", off, got, want)
		}
	}
	return n, nil
}

// framer checks member trailers and finds the next member.
type framer struct {
	size    int64
	maxName int
}

// Next reads the trailer of member i and the header after it from r,
// which reads the input from end.
func (f *framer) Next(ctx context.Context, r *bufio.Reader, i int, end int64, crc uint32, size int64) (int64, bool, error) {
	tr, err := r.Peek(8)
	if err != nil {
		if err == io.EOF {
			err = driver.Corruptf("gzip member %d: trailer at %d is truncated", i, end)
		}
		return 0, false, err
	}
	if got := binary.LittleEndian.Uint32(tr[:4]); got != crc {
		return 0, false, driver.Corruptf("gzip member %d: CRC-32 of the data is %08x, the trailer says %08x", i, crc, got)
	}
	if got := binary.LittleEndian.Uint32(tr[4:]); got != uint32(size) {
		return 0, false, driver.Corruptf("gzip member %d: data is %d bytes, the trailer says %d (mod 2^32)", i, size, got)
	}
	r.Discard(8)
	next := end + 8
	if next == f.size {
		return 0, false, nil
	}
	n, err := parseHeader(r, next, f.maxName, nil)
	if err == errNotGzip {
		// Zero bytes after the last member are padding, as gzip -t,
		// GNU tar and bsdtar take them; anything else is garbage.
		zeros, err := allZero(r, f.size-next)
		if err != nil {
			return 0, false, err
		}
		if zeros {
			return 0, false, nil
		}
		return 0, false, driver.Corruptf("trailing garbage at %d after gzip member %d", next, i)
	}
	if err != nil {
		return 0, false, err
	}
	return next + n, true, nil
}

// allZero reports whether the next n bytes of r are all zero; a short
// input is not.
func allZero(r *bufio.Reader, n int64) (bool, error) {
	for n > 0 {
		b, err := r.Peek(int(min(n, int64(r.Size()))))
		for _, c := range b {
			if c != 0 {
				return false, nil
			}
		}
		r.Discard(len(b))
		n -= int64(len(b))
		if err == io.EOF {
			return n == 0, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return false, err
		}
	}
	return true, nil
}

func open(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	info := src.Stat()
	lim := env.Limits
	var spacing int64
	if o := vfs.SchemeOptions[*Options](env); o != nil {
		spacing = o.Spacing
	}
	iopts := &inflate.Options{Spacing: spacing, Limits: lim, Cache: env.Cache}
	key := ""
	if env.Key != "" {
		// The spacing is part of the key: an index is reused only by
		// opens that ask for its spacing.
		key = fmt.Sprintf("gzip\x00%s\x00%d\x00%d\x00%d", env.Key, info.Size(), info.ModTime().UnixNano(), iopts.EffectiveSpacing())
	}
	disk := env.DiskIndex(fmt.Sprintf("gzip v%d spacing %d", diskVersion, iopts.EffectiveSpacing()))
	head := env.DiskIndex(fmt.Sprintf("gzip head v%d spacing %d", headVersion, iopts.EffectiveSpacing()))
	// The head kept on disk holds the first member's header and the
	// output size: a stream opened from it reads nothing at open, and
	// loads the index kept beside it when it first decodes.
	h, data, hd, pending := loadHead(ctx, env, head, key, info.Size())
	hsize := hd.size
	if h == nil {
		var err error
		h, data, err = readHeader(ctx, src, 0, info.Size(), lim.MaxNameLength)
		if err == errNotGzip {
			err = vfs.NotFormat(ctx, env.Options, src, "gzip", "a gzip stream", "no gzip magic at offset 0")
		}
		if err != nil {
			return driver.Location{}, err
		}
	}
	fr := &framer{size: info.Size(), maxName: lim.MaxNameLength}
	s := inflate.New(src, data, fr, key, iopts)
	if pending {
		s.Index().SetFirstCheck(hd.checkOut, hd.checkCRC)
	}
	mtime := h.ModTime
	if mtime.IsZero() {
		mtime = info.ModTime()
	}
	var z *bgzf
	if _, ok := bgzfBlockSize(h.Extra); ok {
		z = newBGZF(src, info.Size(), lim, lim.MaxNameLength)
	}
	var b *blob
	size := func(ctx context.Context) (int64, error) {
		if z != nil {
			ok, err := z.table(ctx)
			if err != nil {
				return 0, err
			}
			if ok {
				return z.Size(), nil
			}
		}
		b.load(ctx, math.MaxInt64)
		n, err := s.Size(ctx)
		if errors.Is(err, driver.ErrLimit) {
			s.Forget() // a bad stream's partial index is not kept
		}
		b.failed(err)
		b.save(ctx)
		return n, err
	}
	known := func() int64 {
		if n := z.known(); n >= 0 {
			return n
		}
		return s.Index().Size()
	}
	b = &blob{
		s:     s,
		disk:  disk,
		head:  head,
		hdr:   h,
		data:  data,
		bgzf:  z,
		info:  lazysize.New(ctx, outputName(h.Name, info.Name()), info.Mode(), mtime, h, size, known, lim.MaxFileSize),
		csize: driver.CompressedSize(src),
	}
	b.saved.Store(pending && hsize >= 0 || !disk.Enabled())
	n, _ := s.Index().Stats()
	b.points.Store(int64(n))
	if pending {
		// The head's size is not reported (Stat loads the index, whose
		// size it must match): a kept file is checked before it is
		// believed.
		b.pending = func(ctx context.Context) { b.loadIndex(ctx, env, info.Size(), hsize, iopts) }
		b.spacing = iopts.EffectiveSpacing()
	}
	return driver.Location{Blob: b}, nil
}

// outputName picks the name of the decompressed file.
func outputName(fname, input string) string {
	if safeName(fname) {
		return fname
	}
	return fsname.Decompressed("gzip", input)
}

func safeName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || r == ':' {
			return false
		}
	}
	return true
}

// blob is the decompressed stream.
type blob struct {
	s    *inflate.Stream
	disk vfs.DiskIndex // where the complete index is kept across processes
	head vfs.DiskIndex // where the header and size are kept beside it
	// pending loads the index kept on disk before the first decode
	// past its first checkpoint (see load); nil when there is none.
	pending func(context.Context)
	loadMu  sync.Mutex
	loaded  bool         // pending ran to its end, under loadMu
	spacing int64        // of the index's checkpoints
	saved   atomic.Bool  // the complete index is kept on disk, or has no place there
	bad     atomic.Bool  // a read found the stream corrupt: nothing is kept (failed)
	points  atomic.Int64 // checkpoints of the index at open, or once loaded
	hdr     *gzip.Header // the first member\'s header, kept with the index
	data    int64        // the offset of the first member\'s DEFLATE data
	bgzf    *bgzf        // for a first member with the BGZF BC subfield, else nil
	info    *lazysize.Info
	csize   int64
}

var (
	_ driver.Blob          = (*blob)(nil)
	_ driver.Streamer      = (*blob)(nil)
	_ io.Closer            = (*blob)(nil)
	_ driver.ContextCloser = (*blob)(nil)
	_ driver.Compressed    = (*blob)(nil)
)

func (b *blob) Stat() fs.FileInfo { return b.info }

// load loads the index kept on disk before a decode that reaches end, if
// the stream was opened from the head kept beside it and end is past the
// first checkpoint the index can have (a read of the stream's start, as
// format detection does, decodes from there in any case; Stream and Size
// ask with the largest end). A load that ctx cut short is tried again by
// the next.
func (b *blob) load(ctx context.Context, end int64) {
	if b.pending == nil || end <= b.spacing {
		return
	}
	b.loadMu.Lock()
	defer b.loadMu.Unlock()
	if !b.loaded {
		b.pending(ctx)
		b.loaded = ctx.Err() == nil
	}
}

// unloaded reports whether the index kept on disk is still to be loaded.
func (b *blob) unloaded() bool {
	if b.pending == nil {
		return false
	}
	b.loadMu.Lock()
	defer b.loadMu.Unlock()
	return !b.loaded
}

func (b *blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	b.load(ctx, off+int64(len(p)))
	if b.bgzf != nil {
		if off < 0 {
			return b.s.ReadAt(ctx, p, off) // the stream's error
		}
		ok, err := b.bgzf.table(ctx)
		if err != nil {
			return 0, err
		}
		if ok {
			return b.bgzf.ReadAt(ctx, p, off)
		}
	}
	n, err := b.s.ReadAt(ctx, p, off)
	if n < len(p) && !b.saved.Load() {
		b.save(ctx) // a read that reached the end completed the index
	}
	return n, b.failed(err)
}

// save keeps the stream's index on disk once it is complete and checked;
// ctx bounds the write of its sidecars.
func (b *blob) save(ctx context.Context) {
	if b.saved.Load() || !b.s.Index().Checked() || !b.saved.CompareAndSwap(false, true) {
		return
	}
	b.store(ctx)
}

// store keeps the stream's index, and the head beside it, on disk, and
// as sidecars within ctx.
func (b *blob) store(ctx context.Context) {
	ix := b.s.Index()
	b.disk.Store(ctx, encodeDisk(b.hdr, b.data, ix.Encode()))
	out, crc, _ := ix.FirstCheck()
	b.head.Store(ctx, encodeHead(b.hdr, b.data, head{size: ix.Size(), checkOut: out, checkCRC: crc}))
}

// savePartial keeps the stream's index on disk when it is not complete but
// has grown since the open: a tar scan stops at the end-of-archive
// marker, short of the stream's end.
func (b *blob) savePartial(ctx context.Context) {
	// An index kept on disk that this blob never loaded may reach further
	// than what it learned: it stays.
	if b.saved.Load() || b.unloaded() || b.bad.Load() {
		return
	}
	if n, _ := b.s.Index().Stats(); int64(n) > b.points.Load() && !b.s.Index().Complete() {
		b.store(ctx)
	}
}

// loadHead returns the first member's header, its data offset and the
// output size (-1 when unknown) that the head kept on disk holds, unless
// the stream's index in env.Cache has learned something already; h is nil
// when there is none.
func loadHead(ctx context.Context, env *vfs.Env, kept vfs.DiskIndex, key string, srcSize int64) (h *gzip.Header, data int64, hd head, ok bool) {
	none := head{size: -1}
	if key == "" || !kept.Enabled() || inflate.Learned(env.Cache, key) {
		return nil, 0, none, false
	}
	b, ok := kept.Load(ctx, headerLimit(env.Limits))
	if !ok {
		return nil, 0, none, false
	}
	h, data, hd, err := decodeHead(b, srcSize, env.Limits.MaxNameLength)
	if err != nil {
		kept.Remove()
		return nil, 0, none, false
	}
	return h, data, hd, true
}

// headerLimit bounds what encodeDisk writes besides the index: a header
// whose name and comment, decoded from ISO 8859-1, may take twice their
// bytes, its extra field, and a few varints.
func headerLimit(lim vfs.Limits) int64 {
	return maxExtra + 4*int64(lim.MaxNameLength) + 64
}

// loadIndex loads the index kept on disk into the stream's (see
// inflate.Index.Load). Without one that decodes (evicted, damaged, not of
// the head's stream or of its size), the stream builds its own, which is
// kept once complete; a kept index and head that disagree are both
// removed.
func (b *blob) loadIndex(ctx context.Context, env *vfs.Env, srcSize, hsize int64, o *inflate.Options) {
	raw, ok := b.disk.Load(ctx, inflate.EncodedLimit(env.Limits, o.EffectiveSpacing())+headerLimit(env.Limits))
	var err error
	if ok {
		var h *gzip.Header
		var data int64
		var ix []byte
		h, data, ix, err = decodeDisk(raw, srcSize, env.Limits.MaxNameLength)
		if err == nil && (data != b.data || !reflect.DeepEqual(h, b.hdr)) {
			err = driver.Corruptf("the kept index is not of the kept header's stream")
		}
		if err == nil {
			_, err = b.s.Index().Load(ix, data, srcSize, hsize)
		}
		if err != nil {
			b.disk.Remove()
			b.head.Remove()
		}
	}
	if !ok || err != nil {
		b.saved.Store(false)
		return
	}
	if !b.s.Index().Complete() {
		b.saved.Store(false) // kept as far as it went: kept again once complete
	}
	n, _ := b.s.Index().Stats()
	b.points.Store(int64(n))
}

// Stream reads the output forward from off, building the index and
// learning the size on its way (see the package documentation).
func (b *blob) Stream(ctx context.Context, off int64) (io.ReadCloser, error) {
	// A stream goes on to the end: the checkpoints let a helper decode
	// ahead of it on a second core (internal/inflate).
	b.load(ctx, math.MaxInt64)
	rc, err := b.s.Stream(ctx, off)
	if err != nil {
		return nil, b.failed(err)
	}
	return blobread.Watch(rc, b.failed), nil
}

// failed notes err, the error of a read: a stream found corrupt keeps no
// index, neither what this blob learned (savePartial) nor what it loaded
// (removed from disk, so that no process resumes from it), and drops the
// index from the cache.
func (b *blob) failed(err error) error {
	if errors.Is(err, driver.ErrCorrupt) && b.bad.CompareAndSwap(false, true) {
		b.s.Forget()
		if b.pending != nil {
			b.disk.Remove()
			b.head.Remove()
		}
	}
	return err
}

// Close is CloseContext with a context that nothing cancels.
func (b *blob) Close() error { return b.CloseContext(context.Background()) }

// CloseContext keeps the index the stream learned, as a sidecar within
// ctx (see driver.ContextCloser), and releases the stream.
func (b *blob) CloseContext(ctx context.Context) error {
	b.save(ctx)
	b.savePartial(ctx)
	return b.s.Close()
}

// CompressedSize returns the compressed size at the bottom of the nest.
func (b *blob) CompressedSize() int64 { return b.csize }
