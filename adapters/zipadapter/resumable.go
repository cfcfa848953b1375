package zipadapter

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"sort"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/blobread"
)

// Points where a member's decoding resumes: one about every pointSpacing
// bytes of output, or more sparsely in a member so large that they would
// be more than maxPoints (a Deflate64 point holds a 64 KiB window: at most
// 8 MiB a member).
const (
	pointSpacing = 1 << 20
	maxPoints    = 128
)

// A resumer decodes one compression method from the start of a member or
// from a point that a pass from the start recorded.
type resumer interface {
	// from returns a reader of the member's output from p (from the
	// start when p is nil), which reads the compressed data with rd,
	// whose Pos is p's input offset. A reader from the start calls
	// record at the points it passes, at least spacing bytes of output
	// apart.
	from(rd *blobread.Reader, p *point, spacing int64, record func(point)) (io.Reader, error)
	// translate maps the decoder's errors to driver.ErrCorrupt or
	// driver.ErrLimit; errors of the input pass through.
	translate(err error) error
}

// A point is where decoding resumes: input and output offsets, and the
// decoder's state there (a Deflate64 window; nothing at a Zstandard
// frame's start).
type point struct {
	in, out int64
	state   any
}

// A resumableBlob is a member whose decoding resumes at points: Deflate64
// at checkpoints, Zstandard at frames. Its first full pass, by the first
// ReadAt or a Stream from offset 0, checks the size and CRC-32 and
// records the points; later reads resume at the nearest one. A corruption
// found is sticky.
type resumableBlob struct {
	dec     resumer
	method  string      // for messages
	src     driver.Blob // the compressed data
	csize   int64
	usize   int64
	want    uint32
	check   bool // the CRC-32 is set
	spacing int64
	info    fs.FileInfo
	name    string

	mu      sync.Mutex
	checked bool    // a pass decoded the whole member and it checked out
	points  []point // from the checked pass, by output offset
	bad     error   // sticky corruption
	cur     *cursor // idle, for reads that continue it
}

var (
	_ driver.Blob       = (*resumableBlob)(nil)
	_ driver.Streamer   = (*resumableBlob)(nil)
	_ driver.Compressed = (*resumableBlob)(nil)
	_ io.Closer         = (*resumableBlob)(nil)
)

// newResumable returns the blob of a member whose compressed data is
// [off, off+csize) of the archive, decoded by dec.
func (a *Archive) newResumable(dec resumer, method string, h *header, off int64, fi *fileInfo) *resumableBlob {
	csize, usize := int64(h.csize), int64(h.usize)
	return &resumableBlob{
		dec:     dec,
		method:  method,
		src:     driver.SectionBlob(a.blob, off, csize, &driver.FileInfo{FName: fi.Name(), FSize: csize, FMode: 0o444}),
		csize:   csize,
		usize:   usize,
		want:    h.crc,
		check:   h.crc != 0, // as archive/zip: 0 is "not set"
		spacing: max(pointSpacing, usize/maxPoints),
		info:    &driver.FileInfo{FName: fi.Name(), FSize: usize, FMode: fi.Mode(), FModTime: fi.ModTime(), FSys: fi.Sys()},
		name:    fi.Name(),
	}
}

func (b *resumableBlob) Stat() fs.FileInfo { return b.info }

// CompressedSize returns the member's compressed size.
func (b *resumableBlob) CompressedSize() int64 { return driver.CompressedSize(b.src) }

// Close drops the idle decoder; the blob stays usable.
func (b *resumableBlob) Close() error {
	b.mu.Lock()
	b.cur = nil
	b.mu.Unlock()
	return nil
}

// A cursor is one decoder of the member, at output offset out.
type cursor struct {
	b   *resumableBlob
	rd  *blobread.Reader
	dec io.Reader
	out int64
	// crc is the CRC-32 of the output so far, kept by a cursor that
	// started at 0; points collects its checkpoints.
	fromStart bool
	crc       uint32
	points    []point
	verified  bool  // from the start to the end, size and CRC-32 checked
	err       error // sticky; io.EOF at the checked end
}

// start returns a cursor at the point at or before off (the start when
// there is none); a cursor from the start records points.
func (b *resumableBlob) start(ctx context.Context, off int64) (*cursor, error) {
	i := sort.Search(len(b.points), func(i int) bool { return b.points[i].out > off }) - 1
	c := &cursor{b: b, rd: &blobread.Reader{Ctx: ctx, Src: b.src, End: b.csize}}
	var err error
	if i < 0 {
		c.fromStart = true
		c.dec, err = b.dec.from(c.rd, nil, b.spacing, func(p point) { c.points = append(c.points, p) })
	} else {
		p := b.points[i]
		c.rd.Pos, c.out = p.in, p.out
		c.dec, err = b.dec.from(c.rd, &p, b.spacing, nil)
	}
	if err != nil {
		return nil, b.dec.translate(err)
	}
	return c, nil
}

// read reads output into p: at most to the declared size, where the
// stream must end and, for a cursor from the start, the CRC-32 match.
func (c *cursor) read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	b := c.b
	p = p[:min(int64(len(p)), b.usize-c.out)]
	n, err := c.dec.Read(p)
	c.out += int64(n)
	if c.fromStart {
		c.crc = crc32.Update(c.crc, crc32.IEEETable, p[:n])
	}
	switch {
	case err == io.EOF:
		if c.out < b.usize {
			err = driver.Corruptf("%s member decodes to %d bytes, the directory says %d", b.method, c.out, b.usize)
		}
	case err != nil:
		err = b.dec.translate(err)
	case c.out == b.usize:
		err = c.end()
	}
	if err != nil {
		c.err = err
		if err != io.EOF {
			return 0, err // no bytes of a bad member
		}
	}
	return n, err
}

// end checks the end of the member: the stream ends, and the CRC-32 of a
// pass from the start matches, which then is verified (and its
// checkpoints can be the blob's: see adopt).
func (c *cursor) end() error {
	var one [1]byte
	if k, err := c.dec.Read(one[:]); k > 0 {
		return driver.Corruptf("%s member decodes to more than the %d bytes the directory says", c.b.method, c.b.usize)
	} else if err != io.EOF {
		return c.b.dec.translate(err)
	}
	if !c.fromStart {
		return io.EOF
	}
	if c.b.check && c.crc != c.b.want {
		return driver.Corruptf("%s member: CRC-32 of the data is %08x, the directory says %08x", c.b.method, c.crc, c.b.want)
	}
	c.verified = true
	return io.EOF
}

// adopt makes the checkpoints of a verified pass the blob's, unless it has
// some. b.mu is held.
func (b *resumableBlob) adopt(c *cursor) {
	if c.verified && !b.checked {
		b.checked, b.points = true, c.points
	}
}

// skip decodes and drops output up to off.
func (c *cursor) skip(off int64) error {
	var buf []byte
	for c.out < off {
		if buf == nil {
			buf = make([]byte, min(off-c.out, 64<<10))
		}
		if _, err := c.read(buf[:min(int64(len(buf)), off-c.out)]); err != nil {
			if err == io.EOF {
				err = driver.Corruptf("%s member ends before offset %d", c.b.method, off)
			}
			return err
		}
	}
	return nil
}

// verify runs the checked pass, unless one ran: a decoder from the start
// to the end. A corruption it meets is kept. b.mu is held: concurrent
// reads wait for the pass, whose result they need.
func (b *resumableBlob) verify(ctx context.Context) error {
	if b.checked {
		return nil
	}
	if b.bad != nil {
		return b.bad
	}
	c, err := b.start(ctx, 0)
	if err != nil {
		return b.fail(err)
	}
	buf := make([]byte, 64<<10)
	for {
		_, err := c.read(buf)
		if err == io.EOF {
			b.adopt(c)
			return nil
		}
		if err != nil {
			return b.fail(err)
		}
	}
}

// fail keeps err when it says the member is corrupt, naming the member.
// b.mu is held.
func (b *resumableBlob) fail(err error) error {
	if errors.Is(err, driver.ErrCorrupt) {
		if b.bad == nil {
			b.bad = fmt.Errorf("%s: %w", b.name, err)
		}
		return b.bad
	}
	return err
}

// ReadAt reads at off. Unless ctx is driver.Unverified, the member has
// been checked whole first (by the first such read, if no pass has), so
// that no byte of a bad member is returned; then the read continues the
// idle decoder, or resumes at the checkpoint nearest before off.
func (b *resumableBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: b.name, Err: fs.ErrInvalid}
	}
	if off >= b.usize {
		return 0, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bad != nil {
		return 0, b.bad
	}
	if !driver.IsUnverified(ctx) {
		if err := b.verify(ctx); err != nil {
			return 0, err
		}
	}
	c := b.cur
	b.cur = nil
	if c == nil || c.out > off || c.err != nil || off-c.out > b.spacing {
		var err error
		if c, err = b.start(ctx, off); err != nil {
			return 0, b.fail(err)
		}
	}
	c.rd.Ctx = ctx
	defer func() { c.rd.Ctx = nil }()
	if err := c.skip(off); err != nil {
		return 0, b.fail(err)
	}
	n := 0
	for n < len(p) && c.out < b.usize {
		k, err := c.read(p[n:])
		n += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, b.fail(err)
		}
	}
	b.cur = c
	if off+int64(n) == b.usize {
		return n, io.EOF
	}
	return n, nil
}

// Stream reads the member from off with a decoder of its own, from the
// checkpoint nearest before off. A stream from the start checks the
// CRC-32 at the end, withholding the last bytes if it does not match, and
// gives the blob its checkpoints.
func (b *resumableBlob) Stream(ctx context.Context, off int64) (io.ReadCloser, error) {
	if off < 0 {
		return nil, &fs.PathError{Op: "read", Path: b.name, Err: fs.ErrInvalid}
	}
	b.mu.Lock()
	bad := b.bad
	var c *cursor
	var err error
	if bad == nil {
		c, err = b.start(ctx, off)
	}
	b.mu.Unlock()
	if bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	c.rd.Ctx = ctx
	if err := c.skip(min(off, b.usize)); err != nil {
		return nil, err
	}
	return &resumableStream{c: c, ctx: ctx}, nil
}

type resumableStream struct {
	c   *cursor
	ctx context.Context
}

func (s *resumableStream) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	if s.c.out == s.c.b.usize && s.c.err == nil {
		return 0, io.EOF
	}
	n, err := s.c.read(p)
	if err == io.EOF && s.c.verified {
		b := s.c.b
		b.mu.Lock()
		b.adopt(s.c)
		b.mu.Unlock()
	} else if err != nil && err != io.EOF {
		b := s.c.b
		b.mu.Lock()
		err = b.fail(err)
		b.mu.Unlock()
	}
	return n, err
}

func (s *resumableStream) Close() error { return nil }
