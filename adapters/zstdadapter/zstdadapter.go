// Package zstdadapter registers the "zstd:" adapter and the zstd format
// signatures with vfs. Import it for its side effects:
//
//	import _ "github.com/pipefs/pipefs/adapters/zstdadapter"
//
// "file:/d/x.zst|zstd:" is the decompressed bytes of x.zst, as a file with
// random access by frame.
//
// # Frames and random access
//
// A zstd file is a sequence of frames (RFC 8878) and skippable frames.
// Open builds an index of the frames: from the seek table of the seekable
// format (a skippable frame with magic 0x184D2A5E ending in the footer
// magic 0x8F92EAB1) when the file ends in one, else by walking the frame
// and block headers, which costs one small read per block and decodes
// nothing. When a frame declares no content size, opening still decodes
// nothing: the size is learnt by the first pass, whichever read makes it.
// The blob is a [driver.Streamer], so io.Copy of the file (pipefs cat)
// decodes the frames once, forward, measuring them on its way;
// Stat().Size(), or a ReadAt, decodes the unmeasured frames on first use,
// once. Size runs with the values of the open's context but not its
// cancellation, and returns Limits.MaxFileSize when the data is bad (the
// read then returns the error; bad data is never cut short silently).
// ReadAt decodes from the start of the frame that holds
// its offset; a read that continues where an earlier one stopped goes on
// with the same decoder. Checkpoints inside a frame are not possible (a
// zstd decoder's state, entropy tables and window included, cannot be
// saved and restored with klauspost/compress), so a file made of one big
// frame is read forward, and a backward read restarts its frame. Write
// seekable files (the seekable format, or zstd's --rsyncable with
// independent frames) for fast random access.
//
// # Verification and limits
//
// Content checksums are verified by the decoder when a read reaches the end
// of a frame; a frame whose output differs from its declared content size
// or from its seek table entry is an error matching driver.ErrCorrupt, and so
// are reserved bits, bad magic, truncation and trailing bytes that are not
// a frame. A seek table that does not add up to the file's layout is
// refused at open. A frame whose window is larger than Limits.MaxWindow
// is refused at open with an error matching driver.ErrLimit (and by the
// decoder, for frames a seek table lists), which bounds each decoder's
// memory. Limits.MaxFileSize bounds the total output; Limits.MaxRatio bounds
// each frame's output against its compressed size (zstd legitimately goes
// past 1100:1 on runs of one byte: raise the limit for such files), and
// the total against the compressed bytes at the bottom of nested
// decompressors. Limits.MaxEntries bounds the number of frames.
//
// # Concurrency and memory
//
// The blob's ReadAt is safe for concurrent use; each concurrent read holds
// one decoder (its window, up to Limits.MaxWindow, plus about 1 MiB). A blob keeps
// at most 4 idle decoders; Close releases them.
package zstdadapter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/internal/lazysize"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "zstd", OpenFile: open})
	vfs.RegisterFormat(&vfs.Format{Name: "zstd", Adapter: "zstd:", Input: vfs.KindFile, Magic: "\x28\xb5\x2f\xfd"})
	vfs.RegisterFormat(&vfs.Format{Name: "zstd (skippable frame first)", Adapter: "zstd:", Input: vfs.KindFile,
		Magic: "?\x2a\x4d\x18", Head: 4096, Match: skippableThenFrame})
}

const (
	frameMagic     = 0xFD2FB528
	skipMagicMask  = 0xFFFFFFF0
	skipMagic      = 0x184D2A50
	seekTableMagic = 0x184D2A5E
	seekFooter     = 0x8F92EAB1
	maxBlock       = 128 << 10
)

// skippableThenFrame matches skippable frames followed by a zstd frame
// within the head.
func skippableThenFrame(head, _ []byte, _ int64) bool {
	for off := 0; off+8 <= len(head); {
		m := binary.LittleEndian.Uint32(head[off:])
		switch {
		case m == frameMagic:
			return true
		case m&skipMagicMask == skipMagic:
			off += 8 + int(binary.LittleEndian.Uint32(head[off+4:]))
		default:
			return false
		}
	}
	return false
}

// A frame is one zstd frame of the input.
type frame struct {
	in, end int64 // compressed bytes [in, end)
	out     int64 // output offset
	size    int64 // output size, -1 until known
}

// Info is what Stat().Sys() returns.
type Info struct {
	Frames   int  // number of zstd frames
	Seekable bool // the index came from a seek table
}

type opener struct {
	ctx  context.Context
	src  driver.Blob
	size int64
	lim  vfs.Limits
}

func (o *opener) read(p []byte, off int64) error {
	n, err := o.src.ReadAt(o.ctx, p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = driver.Corruptf("zstd data truncated at %d", off+int64(n))
	}
	return err
}

func (o *opener) u32(off int64) (uint32, error) {
	var b [4]byte
	err := o.read(b[:], off)
	return binary.LittleEndian.Uint32(b[:]), err
}

// seekTable returns the frames of a seek table, or nil when the file does
// not end in one.
func (o *opener) seekTable() ([]frame, error) {
	if o.size < 17 {
		return nil, nil
	}
	var foot [9]byte
	if err := o.read(foot[:], o.size-9); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(foot[5:]) != seekFooter {
		return nil, nil
	}
	n := int64(binary.LittleEndian.Uint32(foot[:4]))
	desc := foot[4]
	if desc&0x7c != 0 {
		return nil, driver.Corruptf("zstd seek table: reserved descriptor bits %#02x", desc&0x7c)
	}
	esize := int64(8)
	if desc&0x80 != 0 {
		esize = 12
	}
	if n > int64(o.lim.MaxEntries) {
		return nil, driver.Limitf("zstd seek table lists %d frames, more than Limits.MaxEntries (%d)", n, o.lim.MaxEntries)
	}
	tsize := n*esize + 9
	start := o.size - tsize - 8
	if start < 0 {
		return nil, driver.Corruptf("zstd seek table of %d frames is larger than the file", n)
	}
	if m, err := o.u32(start); err != nil || m != seekTableMagic {
		return nil, driver.Corruptf("zstd seek table: no skippable frame header at %d", start)
	}
	if fs, err := o.u32(start + 4); err != nil || int64(fs) != tsize {
		return nil, driver.Corruptf("zstd seek table: frame size does not match %d entries", n)
	}
	tab := make([]byte, n*esize) // bounded by the file size above
	if err := o.read(tab, start+8); err != nil {
		return nil, err
	}
	frames := make([]frame, 0, n)
	var in, out int64
	for i := range n {
		e := tab[i*esize:]
		c, d := int64(binary.LittleEndian.Uint32(e)), int64(binary.LittleEndian.Uint32(e[4:]))
		if c == 0 && d == 0 {
			continue
		}
		if c < 9 {
			return nil, driver.Corruptf("zstd seek table: entry %d has %d compressed bytes", i, c)
		}
		frames = append(frames, frame{in: in, end: in + c, out: out, size: d})
		in += c
		out += d
	}
	if in != start {
		return nil, driver.Corruptf("zstd seek table: frames add up to %d bytes, the table starts at %d", in, start)
	}
	for _, f := range frames {
		if m, err := o.u32(f.in); err != nil || m != frameMagic {
			return nil, driver.Corruptf("zstd seek table: no frame at %d", f.in)
		}
	}
	return frames, nil
}

// walk finds the frames by their headers.
func (o *opener) walk() ([]frame, error) {
	var frames []frame
	for off := int64(0); off < o.size; {
		m, err := o.u32(off)
		if err != nil {
			return nil, err
		}
		if m&skipMagicMask == skipMagic {
			n, err := o.u32(off + 4)
			if err != nil {
				return nil, err
			}
			if off+8+int64(n) > o.size {
				return nil, driver.Corruptf("zstd skippable frame at %d is truncated", off)
			}
			off += 8 + int64(n)
			continue
		}
		if m != frameMagic {
			if len(frames) == 0 {
				return nil, driver.Corruptf("not a zstd file: no frame magic at %d", off)
			}
			return nil, driver.Corruptf("trailing garbage at %d after zstd frame %d", off, len(frames)-1)
		}
		if len(frames) >= o.lim.MaxEntries {
			return nil, driver.Limitf("zstd file has more than Limits.MaxEntries (%d) frames", o.lim.MaxEntries)
		}
		f, err := o.frame(off)
		if err != nil {
			return nil, err
		}
		frames = append(frames, f)
		off = f.end
	}
	if len(frames) == 0 {
		return nil, driver.Corruptf("zstd file has no frame")
	}
	return frames, nil
}

// frame parses the frame header at off and walks its blocks.
func (o *opener) frame(off int64) (frame, error) {
	var h [14]byte
	hn := min(int64(len(h)), o.size-off)
	if err := o.read(h[:hn], off); err != nil {
		return frame{}, err
	}
	if hn < 6 {
		return frame{}, driver.Corruptf("zstd frame header at %d is truncated", off)
	}
	fhd := h[4]
	if fhd&0x08 != 0 {
		return frame{}, driver.Corruptf("zstd frame at %d: reserved header bit set", off)
	}
	single := fhd&0x20 != 0
	pos := 5
	var window uint64
	if !single {
		wd := h[pos]
		pos++
		exp := uint(wd>>3) + 10
		base := uint64(1) << exp
		window = base + base/8*uint64(wd&7)
	}
	pos += []int{0, 1, 2, 4}[fhd&3]
	fcsLen := []int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && single {
		fcsLen = 1
	}
	if int64(pos+fcsLen) > hn {
		return frame{}, driver.Corruptf("zstd frame header at %d is truncated", off)
	}
	size := int64(-1)
	switch fcsLen {
	case 1:
		size = int64(h[pos])
	case 2:
		size = int64(binary.LittleEndian.Uint16(h[pos:])) + 256
	case 4:
		size = int64(binary.LittleEndian.Uint32(h[pos:]))
	case 8:
		v := binary.LittleEndian.Uint64(h[pos:])
		if v > 1<<62 {
			return frame{}, driver.Limitf("zstd frame at %d declares %d bytes", off, v)
		}
		size = int64(v)
	}
	pos += fcsLen
	if single {
		window = uint64(size)
	}
	if window > uint64(o.lim.MaxWindow) {
		return frame{}, driver.Limitf("zstd frame at %d needs a %d-byte window, more than Limits.MaxWindow (%d)", off, window, o.lim.MaxWindow)
	}
	p := off + int64(pos)
	for {
		var bh [3]byte
		if err := o.read(bh[:], p); err != nil {
			return frame{}, err
		}
		v := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last, typ, bsize := v&1 != 0, (v>>1)&3, int64(v>>3)
		switch typ {
		case 1:
			bsize = 1
		case 3:
			return frame{}, driver.Corruptf("zstd frame at %d: reserved block type at %d", off, p)
		}
		if bsize > maxBlock {
			return frame{}, driver.Corruptf("zstd frame at %d: block of %d bytes at %d", off, bsize, p)
		}
		p += 3 + bsize
		if p > o.size {
			return frame{}, driver.Corruptf("zstd frame at %d is truncated", off)
		}
		if last {
			break
		}
	}
	if fhd&0x04 != 0 {
		p += 4
	}
	if p > o.size {
		return frame{}, driver.Corruptf("zstd frame at %d is truncated", off)
	}
	return frame{in: off, end: p, size: size}, nil
}

func open(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	info := src.Stat()
	op := &opener{ctx: ctx, src: src, size: info.Size(), lim: env.Limits}
	frames, err := op.seekTable()
	seekable := frames != nil
	if err == nil && frames == nil {
		frames, err = op.walk()
	}
	if err != nil {
		return driver.Location{}, err
	}
	b := &blob{src: src, frames: frames, csize: driver.CompressedSize(src), lim: op.lim}
	sized := true
	for _, f := range frames {
		sized = sized && f.size >= 0
	}
	sys := &Info{Frames: len(frames), Seekable: seekable}
	if sized {
		if err := b.layout(); err != nil {
			return driver.Location{}, err
		}
		b.info = &driver.FileInfo{
			FName:    fsname.Decompressed("zstd", info.Name()),
			FSize:    b.size,
			FMode:    info.Mode().Perm(),
			FModTime: info.ModTime(),
			FSys:     sys,
		}
		b.sized.Store(true)
		return driver.Location{Blob: b}, nil
	}
	// A frame without a content size: the size is learnt by the first
	// pass, a streamed read or the first call of Size.
	b.info = lazysize.New(ctx, fsname.Decompressed("zstd", info.Name()), info.Mode(), info.ModTime(), sys,
		b.measureAll, b.knownSize, op.lim.MaxFileSize)
	return driver.Location{Blob: b}, nil
}

// layout sets the output offsets of the frames, whose sizes are all known,
// and checks the limits.
func (b *blob) layout() error {
	var out int64
	lim := b.lim
	for i := range b.frames {
		f := &b.frames[i]
		f.out = out
		if f.size > lim.MaxOutputSlack(f.end-f.in) {
			return driver.Limitf("zstd frame %d decompresses to %d bytes, more than Limits.MaxRatio (%d) times its %d bytes", i, f.size, lim.MaxRatio, f.end-f.in)
		}
		out += f.size
		if out > lim.MaxFileSize {
			return driver.Limitf("zstd output exceeds Limits.MaxFileSize (%d bytes)", lim.MaxFileSize)
		}
		if out > lim.MaxOutputSlack(b.csize) {
			return driver.Limitf("zstd output exceeds Limits.MaxRatio (%d) times the %d compressed bytes it comes from", lim.MaxRatio, b.csize)
		}
	}
	b.size = out
	return nil
}

// knownSize returns the size once the frames are laid out, else -1.
func (b *blob) knownSize() int64 {
	if b.sized.Load() {
		return b.size
	}
	return -1
}

// measureAll decodes the frames without a content size to learn their
// sizes, then lays the frames out. It runs once; a concurrent streamed
// pass may get there first.
func (b *blob) measureAll(ctx context.Context) (int64, error) {
	b.sizeMu.Lock()
	defer b.sizeMu.Unlock()
	if b.sized.Load() {
		return b.size, nil
	}
	sizes := make([]int64, len(b.frames))
	for i, f := range b.frames {
		sizes[i] = f.size
		if f.size < 0 {
			n, err := b.measure(ctx, i, b.lim)
			if err != nil {
				return 0, err
			}
			sizes[i] = n
		}
	}
	return b.setSizes(sizes)
}

// setSizes records the frame sizes a pass learnt; b.sizeMu is held.
func (b *blob) setSizes(sizes []int64) (int64, error) {
	for i := range b.frames {
		b.frames[i].size = sizes[i]
	}
	if err := b.layout(); err != nil {
		return 0, err
	}
	b.sized.Store(true)
	return b.size, nil
}

// ensureSized lays the frames out before a random read, decoding the
// frames without a content size if no pass has yet.
func (b *blob) ensureSized(ctx context.Context) error {
	if b.sized.Load() {
		return nil
	}
	_, err := b.measureAll(ctx)
	return err
}

// blob is the decompressed file.
type blob struct {
	src    driver.Blob
	frames []frame // out and size are set, and stay, once sized is true
	info   fs.FileInfo
	csize  int64
	lim    vfs.Limits

	sizeMu sync.Mutex  // serialises the passes that learn the sizes
	sized  atomic.Bool // every frame's size and offset is known
	size   int64       // the output size, once sized

	mu   sync.Mutex
	idle []*cursor
}

var (
	_ driver.Blob       = (*blob)(nil)
	_ io.Closer         = (*blob)(nil)
	_ driver.Compressed = (*blob)(nil)
)

func (b *blob) Stat() fs.FileInfo { return b.info }

// CompressedSize returns the compressed size at the bottom of the nest.
func (b *blob) CompressedSize() int64 { return b.csize }

// Close releases the idle decoders; the blob stays usable.
func (b *blob) Close() error {
	b.mu.Lock()
	idle := b.idle
	b.idle = nil
	b.mu.Unlock()
	for _, c := range idle {
		c.release()
	}
	return nil
}

// ctxReaderAt reads the input with the context of the current call.
type ctxReaderAt struct {
	ctx context.Context
	src driver.Blob
}

func (r *ctxReaderAt) ReadAt(p []byte, off int64) (int, error) { return r.src.ReadAt(r.ctx, p, off) }

// decoderPools holds idle decoders by the window limit they were made
// with (a *sync.Pool per Limits.MaxWindow in use).
var decoderPools sync.Map

func (b *blob) getDecoder() (*zstd.Decoder, error) {
	p, _ := decoderPools.LoadOrStore(b.lim.MaxWindow, new(sync.Pool))
	if d, ok := p.(*sync.Pool).Get().(*zstd.Decoder); ok {
		return d, nil
	}
	// One goroutine per decoder: streaming is synchronous and measured
	// fastest on 2 cores (see BenchmarkConcurrency), and no goroutine
	// outlives a dropped decoder. The window is capped again here because
	// frames listed by a seek table were not walked at open.
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(uint64(min(b.lim.MaxWindow, zstd.MaxWindowSize))),
		zstd.WithDecoderMaxMemory(1<<62))
}

func putDecoder(d *zstd.Decoder, window int64) {
	d.Reset(nil)
	p, _ := decoderPools.LoadOrStore(window, new(sync.Pool))
	p.(*sync.Pool).Put(d)
}

// A cursor decodes one frame forward.
type cursor struct {
	ra     ctxReaderAt
	dec    *zstd.Decoder
	window int64 // the MaxWindow dec was made with
	frame  int
	pos    int64 // output offset in the frame
	buf    []byte
}

func (c *cursor) release() {
	if c.dec != nil {
		putDecoder(c.dec, c.window)
		c.dec = nil
	}
}

// start positions c at the start of frame i.
func (b *blob) start(c *cursor, i int) error {
	in, end := b.frames[i].in, b.frames[i].end // not size: a pass may be setting it
	if c.dec == nil {
		d, err := b.getDecoder()
		if err != nil {
			return err
		}
		c.dec, c.window = d, b.lim.MaxWindow
	}
	c.ra.src = b.src
	if err := c.dec.Reset(io.NewSectionReader(&c.ra, in, end-in)); err != nil {
		return translate(err, i)
	}
	c.frame, c.pos = i, 0
	return nil
}

// measure decodes frame i to learn its size.
func (b *blob) measure(ctx context.Context, i int, lim vfs.Limits) (int64, error) {
	c := &cursor{ra: ctxReaderAt{ctx: ctx}, buf: make([]byte, 64<<10)}
	defer c.release()
	if err := b.start(c, i); err != nil {
		return 0, err
	}
	in, end := b.frames[i].in, b.frames[i].end
	bound := min(lim.MaxOutputSlack(end-in), lim.MaxFileSize)
	var n int64
	for {
		k, err := c.dec.Read(c.buf)
		n += int64(k)
		if n > bound {
			return 0, driver.Limitf("zstd frame %d decompresses to more than Limits.MaxRatio (%d) times its size or Limits.MaxFileSize", i, lim.MaxRatio)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, translate(err, i)
		}
	}
}

func (b *blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: b.info.Name(), Err: fs.ErrInvalid}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := b.ensureSized(ctx); err != nil {
		return 0, err
	}
	size := b.size
	if off >= size {
		return 0, io.EOF
	}
	eof := false
	if int64(len(p)) > size-off {
		p, eof = p[:size-off], true
	}
	i := sort.Search(len(b.frames), func(i int) bool { return b.frames[i].out+b.frames[i].size > off })
	c := b.get(i, off)
	c.ra.ctx = ctx
	n, err := b.read(c, p, off)
	c.ra.ctx = nil
	if err != nil {
		c.release()
		return n, err
	}
	b.put(c)
	if eof {
		return n, io.EOF
	}
	return n, nil
}

func (b *blob) get(i int, off int64) *cursor {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, c := range b.idle {
		if c.dec != nil && c.frame == i && b.frames[i].out+c.pos <= off {
			b.idle = append(b.idle[:k], b.idle[k+1:]...)
			return c
		}
	}
	if len(b.idle) > 0 {
		c := b.idle[0]
		b.idle = b.idle[1:]
		c.frame = -1
		return c
	}
	return &cursor{frame: -1, buf: make([]byte, 32<<10)}
}

func (b *blob) put(c *cursor) {
	b.mu.Lock()
	if len(b.idle) < 4 {
		b.idle = append(b.idle, c)
		c = nil
	}
	b.mu.Unlock()
	if c != nil {
		c.release()
	}
}

// read fills p from output offset off, crossing frames.
func (b *blob) read(c *cursor, p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		if c.frame < 0 || c.frame >= len(b.frames) || b.frames[c.frame].out+b.frames[c.frame].size <= off {
			i := sort.Search(len(b.frames), func(i int) bool { return b.frames[i].out+b.frames[i].size > off })
			if i == len(b.frames) {
				return n, io.EOF
			}
			if err := b.start(c, i); err != nil {
				return n, err
			}
		}
		f := b.frames[c.frame]
		// Skip to off within the frame.
		for f.out+c.pos < off {
			k := min(off-f.out-c.pos, int64(len(c.buf)))
			m, err := io.ReadFull(c.dec, c.buf[:k])
			c.pos += int64(m)
			if err != nil {
				return n, b.frameErr(err, c.frame)
			}
		}
		want := min(int64(len(p)-n), f.size-c.pos)
		m, err := io.ReadFull(c.dec, p[n:n+int(want)])
		c.pos += int64(m)
		n += m
		off += int64(m)
		if err != nil {
			return n, b.frameErr(err, c.frame)
		}
		if c.pos == f.size {
			// The frame must end here: this reads its checksum.
			if k, err := c.dec.Read(c.buf[:1]); k > 0 || err != io.EOF {
				if err != nil && err != io.EOF {
					return n, translate(err, c.frame)
				}
				return n, driver.Corruptf("zstd frame %d decodes to more than its declared %d bytes", c.frame, f.size)
			}
			c.frame = -1
		}
	}
	return n, nil
}

func (b *blob) frameErr(err error, i int) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return driver.Corruptf("zstd frame %d decodes to fewer than its declared %d bytes", i, b.frames[i].size)
	}
	return translate(err, i)
}

// translate maps decoder errors to vfs sentinels; errors of the input
// (context, I/O) pass through.
func translate(err error, i int) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, driver.ErrCorrupt), errors.Is(err, driver.ErrLimit), errors.Is(err, driver.ErrModified):
		return err
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return driver.Limitf("zstd frame %d: %v", i, err)
	}
	return fmt.Errorf("%w: zstd frame %d: %w", driver.ErrCorrupt, i, err)
}
