package zipadapter

import (
	"bufio"
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
	"github.com/pipefs/pipefs/internal/deflate64"
)

// Checkpoints of a Deflate64 member: one about every d64Spacing bytes of
// output, or more sparsely in a member so large that they would be more
// than d64MaxPoints (each holds a 64 KiB window: at most 8 MiB a member).
const (
	d64Spacing   = 1 << 20
	d64MaxPoints = 128
)

// A d64Blob is a Deflate64 member. Its first full pass, by the first
// ReadAt or a Stream from offset 0, checks the size and CRC-32 and records
// checkpoints; later reads resume at the nearest one. A corruption found
// is sticky.
type d64Blob struct {
	src     driver.Blob // the compressed data
	csize   int64
	usize   int64
	want    uint32
	check   bool // the CRC-32 is set
	spacing int64
	info    fs.FileInfo
	name    string

	mu      sync.Mutex
	checked bool                   // a pass decoded the whole member and it checked out
	points  []deflate64.Checkpoint // from the checked pass, by output offset
	bad     error                  // sticky corruption
	cur     *d64Cursor             // idle, for reads that continue it
}

var (
	_ driver.Blob       = (*d64Blob)(nil)
	_ driver.Streamer   = (*d64Blob)(nil)
	_ driver.Compressed = (*d64Blob)(nil)
	_ io.Closer         = (*d64Blob)(nil)
)

// newDeflate64 returns the blob of a Deflate64 member whose compressed
// data is [off, off+csize) of the archive.
func (a *Archive) newDeflate64(h *header, off int64, fi *fileInfo) *d64Blob {
	csize, usize := int64(h.csize), int64(h.usize)
	return &d64Blob{
		src:     driver.SectionBlob(a.blob, off, csize, &driver.FileInfo{FName: fi.Name(), FSize: csize, FMode: 0o444}),
		csize:   csize,
		usize:   usize,
		want:    h.crc,
		check:   h.crc != 0, // as archive/zip: 0 is "not set"
		spacing: max(d64Spacing, usize/d64MaxPoints),
		info:    &driver.FileInfo{FName: fi.Name(), FSize: usize, FMode: fi.Mode(), FModTime: fi.ModTime(), FSys: fi.Sys()},
		name:    fi.Name(),
	}
}

func (b *d64Blob) Stat() fs.FileInfo { return b.info }

// CompressedSize returns the member's compressed size.
func (b *d64Blob) CompressedSize() int64 { return driver.CompressedSize(b.src) }

// Close drops the idle decoder; the blob stays usable.
func (b *d64Blob) Close() error {
	b.mu.Lock()
	b.cur = nil
	b.mu.Unlock()
	return nil
}

// A d64Cursor is one decoder of the member, at output offset out.
type d64Cursor struct {
	b   *d64Blob
	rd  *blobread.Reader
	dec *deflate64.Reader
	out int64
	// crc is the CRC-32 of the output so far, kept by a cursor that
	// started at 0; points collects its checkpoints.
	fromStart bool
	crc       uint32
	points    []deflate64.Checkpoint
	verified  bool  // from the start to the end, size and CRC-32 checked
	err       error // sticky; io.EOF at the checked end
}

// start returns a cursor at the checkpoint at or before off (the start
// when there is none); a cursor from the start records checkpoints.
func (b *d64Blob) start(ctx context.Context, off int64) *d64Cursor {
	i := sort.Search(len(b.points), func(i int) bool { return b.points[i].Out > off }) - 1
	c := &d64Cursor{b: b, rd: &blobread.Reader{Ctx: ctx, Src: b.src, End: b.csize}}
	if i < 0 {
		c.fromStart = true
		c.dec = deflate64.NewReader(bufio.NewReaderSize(c.rd, 64<<10))
		c.dec.Checkpoints(b.spacing, func(cp deflate64.Checkpoint) { c.points = append(c.points, cp) })
		return c
	}
	cp := b.points[i]
	c.rd.Pos = cp.In
	c.out = cp.Out
	c.dec = deflate64.Resume(bufio.NewReaderSize(c.rd, 64<<10), cp)
	return c
}

// read reads output into p: at most to the declared size, where the
// stream must end and, for a cursor from the start, the CRC-32 match.
func (c *d64Cursor) read(p []byte) (int, error) {
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
			err = driver.Corruptf("Deflate64 member decodes to %d bytes, the directory says %d", c.out, b.usize)
		}
	case err != nil:
		err = b.translate(err)
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
func (c *d64Cursor) end() error {
	var one [1]byte
	if k, err := c.dec.Read(one[:]); k > 0 {
		return driver.Corruptf("Deflate64 member decodes to more than the %d bytes the directory says", c.b.usize)
	} else if err != io.EOF {
		return c.b.translate(err)
	}
	if !c.fromStart {
		return io.EOF
	}
	if c.b.check && c.crc != c.b.want {
		return driver.Corruptf("Deflate64 member: CRC-32 of the data is %08x, the directory says %08x", c.crc, c.b.want)
	}
	c.verified = true
	return io.EOF
}

// adopt makes the checkpoints of a verified pass the blob's, unless it has
// some. b.mu is held.
func (b *d64Blob) adopt(c *d64Cursor) {
	if c.verified && !b.checked {
		b.checked, b.points = true, c.points
	}
}

// translate maps the decoder's errors to driver.ErrCorrupt; errors of the
// input (context, I/O, a truncated blob) pass through.
func (b *d64Blob) translate(err error) error {
	var ce *deflate64.CorruptInputError
	switch {
	case errors.As(err, &ce):
		return driver.Corruptf("Deflate64 member: %v", err)
	case err == io.ErrUnexpectedEOF:
		return driver.Corruptf("Deflate64 member: the data ends before its final block")
	}
	return err
}

// skip decodes and drops output up to off.
func (c *d64Cursor) skip(off int64) error {
	var buf []byte
	for c.out < off {
		if buf == nil {
			buf = make([]byte, min(off-c.out, 64<<10))
		}
		if _, err := c.read(buf[:min(int64(len(buf)), off-c.out)]); err != nil {
			if err == io.EOF {
				err = driver.Corruptf("Deflate64 member ends before offset %d", off)
			}
			return err
		}
	}
	return nil
}

// verify runs the checked pass, unless one ran: a decoder from the start
// to the end. A corruption it meets is kept. b.mu is held: concurrent
// reads wait for the pass, whose result they need.
func (b *d64Blob) verify(ctx context.Context) error {
	if b.checked {
		return nil
	}
	if b.bad != nil {
		return b.bad
	}
	c := b.start(ctx, 0)
	buf := make([]byte, 64<<10)
	for {
		_, err := c.read(buf)
		if err == io.EOF {
			b.adopt(c)
			return nil
		}
		if err != nil {
			if errors.Is(err, driver.ErrCorrupt) {
				b.bad = fmt.Errorf("%s: %w", b.name, err)
				return b.bad
			}
			return err
		}
	}
}

// ReadAt reads at off. Unless ctx is driver.Unverified, the member has
// been checked whole first (by the first such read, if no pass has), so
// that no byte of a bad member is returned; then the read continues the
// idle decoder, or resumes at the checkpoint nearest before off.
func (b *d64Blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
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
		c = b.start(ctx, off)
	}
	c.rd.Ctx = ctx
	defer func() { c.rd.Ctx = nil }()
	if err := c.skip(off); err != nil {
		return 0, err
	}
	n := 0
	for n < len(p) && c.out < b.usize {
		k, err := c.read(p[n:])
		n += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
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
func (b *d64Blob) Stream(ctx context.Context, off int64) (io.ReadCloser, error) {
	if off < 0 {
		return nil, &fs.PathError{Op: "read", Path: b.name, Err: fs.ErrInvalid}
	}
	b.mu.Lock()
	bad := b.bad
	c := b.start(ctx, off)
	b.mu.Unlock()
	if bad != nil {
		return nil, bad
	}
	c.rd.Ctx = ctx
	if err := c.skip(min(off, b.usize)); err != nil {
		return nil, err
	}
	return &d64Stream{c: c, ctx: ctx}, nil
}

type d64Stream struct {
	c   *d64Cursor
	ctx context.Context
}

func (s *d64Stream) Read(p []byte) (int, error) {
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
	} else if errors.Is(err, driver.ErrCorrupt) {
		b := s.c.b
		b.mu.Lock()
		if b.bad == nil {
			b.bad = fmt.Errorf("%s: %w", b.name, err)
		}
		b.mu.Unlock()
	}
	return n, err
}

func (s *d64Stream) Close() error { return nil }
