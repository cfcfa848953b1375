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

// Close stops the stream; later reads fail.
func (f *Forward) Close() error {
	f.closed = true
	if f.pr != nil {
		f.pr.CloseWithError(errForwardClosed)
	}
	return nil
}
