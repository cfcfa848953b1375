package inflate

import (
	"context"
	"hash/crc32"
	"io"
	"io/fs"

	"github.com/pipefs/pipefs/vfs/driver"
)

var _ interface {
	Stream(ctx context.Context, off int64) (io.ReadCloser, error)
} = (*Stream)(nil)

// Stream returns a reader of the output from off to its end, for
// driver.Streamer: one decoder read forward, which records checkpoints on its
// way as ReadAt does and verifies every member when it ends, so a first
// io.Copy builds the index and learns the size in the same pass. The
// reader never returns output past a declared size; a stream that is
// corrupt, longer or shorter than declared, or fails its CRC-32, gives an
// error matching driver.ErrCorrupt in place of io.EOF, and the error is
// sticky. Close gives the decoder back to the stream.
func (s *Stream) Stream(ctx context.Context, off int64) (io.ReadCloser, error) {
	if off < 0 {
		return nil, &fs.PathError{Op: "read", Path: s.src.Stat().Name(), Err: fs.ErrInvalid}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.declared >= 0 && off > s.declared {
		off = s.declared
	}
	if n := s.ix.Size(); n >= 0 && off > n {
		off = n
	}
	c, err := s.get(ctx, off)
	if err != nil {
		return nil, err
	}
	if _, err := c.read(ctx, nil, off); err != nil && err != io.EOF {
		c.release()
		return nil, err
	}
	c.rd.Ctx = nil
	return &streamReader{s: s, c: c, ctx: ctx, cold: off == 0}, nil
}

// streamReader is what Stream returns.
type streamReader struct {
	s   *Stream
	c   *cursor // nil once closed or failed
	ctx context.Context
	err error // sticky: io.EOF, a decoding error, or fs.ErrClosed

	cold bool // from the start: WriteTo may decode on two cores
}

func (r *streamReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	c := r.c
	c.rd.Ctx = r.ctx
	defer func() {
		if r.c != nil {
			r.c.rd.Ctx = nil
		}
	}()
	if d := r.s.declared; d >= 0 {
		if c.out >= d {
			// The declared end: the data must end here too.
			return 0, r.fail(c.finish())
		}
		p = p[:min(int64(len(p)), d-c.out)]
	}
	n, err := c.next(p)
	if err != nil {
		return n, r.fail(err)
	}
	return n, nil
}

// WriteTo copies the rest of the output to w. It hands w the decoder's
// own output buffer (klauspost's decompressor is an io.WriterTo), which
// saves a copy of every byte.
func (r *streamReader) WriteTo(w io.Writer) (int64, error) {
	if r.err != nil {
		if r.err == io.EOF {
			return 0, nil
		}
		return 0, r.err
	}
	c := r.c
	wt, ok := c.fr.(io.WriterTo)
	if !ok {
		return r.copyTo(w)
	}
	if sp := r.speculate(); sp != nil {
		return r.writeToSpec(w, wt, sp)
	}
	c.rd.Ctx = r.ctx
	cw := &cursorWriter{c: c, w: w, ctx: r.ctx, declared: r.s.declared}
	for !c.done {
		_, err := wt.WriteTo(cw)
		switch {
		case cw.err != nil:
			return cw.total, r.fail(cw.err)
		case err != nil:
			return cw.total, r.fail(translate(err))
		}
		// The end of a member's DEFLATE data.
		if err := c.memberEnd(); err != nil {
			return cw.total, r.fail(err)
		}
	}
	r.fail(nil)
	return cw.total, nil
}

// copyTo is WriteTo through Read.
func (r *streamReader) copyTo(w io.Writer) (int64, error) {
	buf := make([]byte, 128<<10)
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
			if m < n {
				return total, io.ErrShortWrite
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// cursorWriter receives the decoder's output for WriteTo: it does what
// cursor.next does with output (checkpoint candidates, CRC-32, counts,
// limits, the declared size) and passes it on to w.
type cursorWriter struct {
	c        *cursor
	w        io.Writer
	ctx      context.Context
	declared int64
	total    int64
	err      error // ours or w's, as opposed to the decoder's
}

func (cw *cursorWriter) Write(b []byte) (int, error) {
	if err := cw.ctx.Err(); err != nil {
		cw.err = err
		return 0, err
	}
	c := cw.c
	var long error
	if cw.declared >= 0 && c.out+int64(len(b)) > cw.declared {
		long = driver.Corruptf("DEFLATE stream is longer than the declared %d bytes", cw.declared)
		b = b[:cw.declared-c.out]
	}
	if c.pend != nil {
		c.feed(b)
	}
	c.crc = crc32.Update(c.crc, crc32.IEEETable, b)
	c.mout += int64(len(b))
	c.out += int64(len(b))
	if err := c.check(); err != nil {
		cw.err = err
		return 0, err
	}
	n, err := cw.w.Write(b)
	cw.total += int64(n)
	switch {
	case err != nil:
	case n < len(b):
		err = io.ErrShortWrite
	default:
		err = long
	}
	if err != nil {
		cw.err = err
		return n, err
	}
	return n, nil
}

// fail ends the reader with err (nil or io.EOF for a clean end): a
// cursor that ended cleanly goes back to the stream, any other is
// dropped.
func (r *streamReader) fail(err error) error {
	if err == nil {
		err = io.EOF
	}
	c := r.c
	r.c, r.err = nil, err
	c.rd.Ctx = nil
	if err == io.EOF {
		r.s.put(c)
	} else {
		c.release()
	}
	return err
}

func (r *streamReader) Close() error {
	if r.c != nil {
		c := r.c
		r.c = nil
		c.rd.Ctx = nil
		r.s.put(c)
	}
	if r.err == nil {
		r.err = fs.ErrClosed
	}
	return nil
}
