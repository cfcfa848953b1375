package blobread

import (
	"context"
	"errors"
	"io"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Forward serves reads at increasing offsets of a blob from one forward
// stream of it (driver.Streamer), which a goroutine copies through the
// stream's WriteTo: a scan that reads a compressed archive's headers in
// order decodes the data once, the way a sequential copy does (on two
// cores for DEFLATE), rather than through the blob's ReadAt. The bytes
// between two reads are decoded and dropped. A read before the stream's
// position goes to the blob's ReadAt. Close stops the stream; a Forward is
// used by one goroutine at a time.
type Forward struct {
	ctx context.Context
	b   driver.Blob
	st  driver.Streamer

	pr     *io.PipeReader
	pos    int64 // offset of the next byte of pr
	err    error // the stream's error, once it failed
	closed bool
}

// NewForward returns a Forward over b, which st streams (usually b
// itself). Nothing is decoded before the first read.
func NewForward(ctx context.Context, b driver.Blob, st driver.Streamer) *Forward {
	return &Forward{ctx: ctx, b: b, st: st}
}

var errForwardClosed = errors.New("blobread: forward reader closed")

// ReadAt reads len(p) bytes at off, following io.ReaderAt.
func (f *Forward) ReadAt(p []byte, off int64) (int, error) {
	if f.closed {
		return 0, errForwardClosed
	}
	if f.pr == nil && f.err == nil {
		f.start()
	}
	if off < f.pos || f.err != nil && f.err != io.EOF {
		return f.b.ReadAt(f.ctx, p, off)
	}
	if f.err == io.EOF {
		return 0, io.EOF
	}
	if off > f.pos {
		n, err := io.CopyN(io.Discard, f.pr, off-f.pos)
		f.pos += n
		if err != nil {
			return 0, f.fail(err)
		}
	}
	n, err := io.ReadFull(f.pr, p)
	f.pos += int64(n)
	if err != nil {
		return n, f.fail(err)
	}
	return n, nil
}

// fail records the stream's error: the end of the data is io.EOF for
// this read and the next.
func (f *Forward) fail(err error) error {
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		f.err = io.EOF
		return io.EOF
	}
	f.err = err
	return err
}

func (f *Forward) start() {
	rc, err := f.st.Stream(f.ctx, 0)
	if err != nil {
		f.err = err
		return
	}
	pr, pw := io.Pipe()
	f.pr = pr
	go func() {
		_, err := io.Copy(pw, rc)
		rc.Close()
		pw.CloseWithError(err)
	}()
}

// Pos returns the offset of the next byte the stream would give: after
// it failed, how many bytes it gave.
func (f *Forward) Pos() int64 { return f.pos }

// Drain reads the stream on to its end and drops what it decodes, so
// that the checks the stream makes at its end (a gzip trailer's CRC-32,
// a zstd frame's checksum) run; it returns their error, or nil at a clean
// end. A scan that stops at an end-of-archive marker drains the rest.
func (f *Forward) Drain() error {
	if f.closed {
		return errForwardClosed
	}
	if f.pr == nil && f.err == nil {
		f.start()
	}
	if f.err != nil {
		if f.err == io.EOF {
			return nil
		}
		return f.err
	}
	n, err := io.Copy(io.Discard, f.pr)
	f.pos += n
	if err != nil {
		return f.fail(err)
	}
	f.err = io.EOF
	return nil
}

// Close stops the stream; later reads fail.
func (f *Forward) Close() error {
	f.closed = true
	if f.pr != nil {
		f.pr.CloseWithError(errForwardClosed)
	}
	return nil
}
