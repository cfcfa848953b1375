package inflate

import (
	"context"
	"io"
	"io/fs"
)

var _ interface {
	Stream(ctx context.Context, off int64) (io.ReadCloser, error)
} = (*Stream)(nil)

// Stream returns a reader of the output from off to its end, for
// vfs.Streamer: one decoder read forward, which records checkpoints on its
// way as ReadAt does and verifies every member when it ends, so a first
// io.Copy builds the index and learns the size in the same pass. The
// reader never returns output past a declared size; a stream that is
// corrupt, longer or shorter than declared, or fails its CRC-32, gives an
// error matching vfs.ErrCorrupt in place of io.EOF, and the error is
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
	c.rd.ctx = nil
	return &streamReader{s: s, c: c, ctx: ctx}, nil
}

// streamReader is what Stream returns.
type streamReader struct {
	s   *Stream
	c   *cursor // nil once closed or failed
	ctx context.Context
	err error // sticky: io.EOF, a decoding error, or fs.ErrClosed
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
	c.rd.ctx = r.ctx
	defer func() {
		if r.c != nil {
			r.c.rd.ctx = nil
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

// WriteTo copies the rest of the output to w in large reads.
func (r *streamReader) WriteTo(w io.Writer) (int64, error) {
	if r.err != nil {
		if r.err == io.EOF {
			return 0, nil
		}
		return 0, r.err
	}
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

// fail ends the reader with err (nil or io.EOF for a clean end): a
// cursor that ended cleanly goes back to the stream, any other is
// dropped.
func (r *streamReader) fail(err error) error {
	if err == nil {
		err = io.EOF
	}
	c := r.c
	r.c, r.err = nil, err
	c.rd.ctx = nil
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
		c.rd.ctx = nil
		r.s.put(c)
	}
	if r.err == nil {
		r.err = fs.ErrClosed
	}
	return nil
}
