package vfs

import (
	"errors"
	"io"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Read-ahead of File.Read and File.ReadAt. A read of less than smallRead
// bytes that continues the previous read of the file reads up to
// readAhead bytes into a window, and the small reads that follow are
// copies from it: a loop of 1-byte reads costs one blob read per
// readAhead bytes, not one per byte. The first read of a file, larger
// reads, and a small read at another offset go to the blob as they are,
// so that a file read once in a small piece (a header) costs only that
// piece. A window holds the bytes of the file at its offset and is never
// written once made, so Read, ReadAt and Seek share it with no lock: any
// read inside it is served from it, wherever it comes from. A read ahead
// that fails because of the bytes past the caller's (corrupt data, a
// limit) is not the caller's failure: the read asks the blob again for
// its own bytes. Other errors (of I/O, of the context) are returned.
const (
	smallRead = 16 << 10
	readAhead = 64 << 10
)

// A window holds bytes of a file read ahead.
type window struct {
	off int64
	buf []byte
	eof bool // the file ends at off+len(buf)
}

// read copies the bytes at off to p when the window holds them all, or
// all there are before the end of the file, and reports whether it did.
func (w *window) read(p []byte, off int64) (int, bool, error) {
	if off < w.off || off > w.off+int64(len(w.buf)) {
		return 0, false, nil
	}
	avail := w.buf[off-w.off:]
	switch {
	case len(p) <= len(avail):
		return copy(p, avail), true, nil
	case w.eof:
		return copy(p, avail), true, io.EOF
	}
	return 0, false, nil
}

// A readAheadState is the read-ahead of a File.
type readAheadState struct {
	win  atomic.Pointer[window]
	next atomic.Int64 // where the last read ended: a read there is sequential; -1 before the first
	size atomic.Int64 // the file's size once known without decoding; -1 before
}

// readAt reads p at off, through the read-ahead window when p is small and
// the read sequential; it returns what f.blob.ReadAt would.
func (f *File) readAt(p []byte, off int64) (int, error) {
	n, err := f.readAtOnce(p, off)
	f.ra.next.Store(off + int64(n))
	return n, err
}

func (f *File) readAtOnce(p []byte, off int64) (int, error) {
	if f.direct {
		return f.blob.ReadAt(f.ctx, p, off)
	}
	if w := f.ra.win.Load(); w != nil {
		if n, ok, err := w.read(p, off); ok {
			return n, err
		}
	}
	if len(p) == 0 || len(p) >= smallRead || off != f.ra.next.Load() {
		return f.blob.ReadAt(f.ctx, p, off)
	}
	n := int64(readAhead)
	size, known := f.knownSize()
	if known {
		if off >= size {
			return f.blob.ReadAt(f.ctx, p, off)
		}
		n = min(n, size-off)
	}
	buf := make([]byte, n)
	m, err := f.blob.ReadAt(f.ctx, buf, off)
	if err != nil && err != io.EOF {
		if errors.Is(err, driver.ErrCorrupt) || errors.Is(err, driver.ErrLimit) {
			// The blob's answer for the bytes asked, which may come
			// before what failed: read them alone.
			return f.blob.ReadAt(f.ctx, p, off)
		}
		return 0, err
	}
	if err == nil && int64(m) < n {
		// A short read without io.EOF breaks io.ReaderAt: keep no window
		// of it, and let the caller's own read show what the blob does.
		return f.blob.ReadAt(f.ctx, p, off)
	}
	w := &window{off: off, buf: buf[:m], eof: err == io.EOF || known && off+int64(m) == size}
	f.ra.win.Store(w)
	if n, ok, err := w.read(p, off); ok {
		return n, err
	}
	// The blob read short without saying why: ask it for p alone.
	return f.blob.ReadAt(f.ctx, p, off)
}

// knownSize returns the size of the file, if it is known without decoding
// anything (see driver.SizeKnower).
func (f *File) knownSize() (int64, bool) {
	if s := f.ra.size.Load(); s >= 0 {
		return s, true
	}
	if !sizeKnown(f.info) {
		return 0, false
	}
	s := f.info.Size()
	f.ra.size.Store(s)
	return s, true
}
