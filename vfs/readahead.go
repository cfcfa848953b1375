package vfs

import "io"

// Read-ahead of File.Read. A Read of less than smallRead bytes that
// continues the previous Read (the first Read of a file does) reads up to
// readAhead bytes into the file's buffer, and the small Reads that follow
// are served from it: a loop of 1-byte Reads costs one blob read per
// readAhead bytes, not one per byte. Larger Reads, and a small Read after a
// Seek elsewhere, go to the blob. The buffer holds bytes by their offset
// in the file, so a Seek keeps it: a Read at an offset it holds is served
// from it, wherever it comes from. ReadAt and WriteTo never use it.
const (
	smallRead = 16 << 10
	readAhead = 64 << 10
)

// A readBuffer holds bytes of a file read ahead of Read.
type readBuffer struct {
	mem  []byte // storage, allocated on first use
	buf  []byte // the bytes of the file at off
	off  int64
	next int64 // where the last Read ended: a Read there is sequential
}

// take copies to p the buffered bytes at off and returns their number.
func (r *readBuffer) take(p []byte, off int64) int {
	if off < r.off || off >= r.off+int64(len(r.buf)) {
		return 0
	}
	return copy(p, r.buf[off-r.off:])
}

// read reads into p at f.off, through the read-ahead buffer when p is
// small and the read sequential. f.mu is held.
func (f *File) read(p []byte) (int, error) {
	if n := f.ra.take(p, f.off); n > 0 {
		return n, nil
	}
	if len(p) == 0 || len(p) >= smallRead || f.off != f.ra.next {
		return f.blob.ReadAt(f.ctx, p, f.off)
	}
	n := int64(readAhead)
	if sizeKnown(f.info) {
		n = min(n, f.info.Size()-f.off) // > 0: Read returns io.EOF past the end
	}
	if int64(cap(f.ra.mem)) < n {
		f.ra.mem = make([]byte, n)
	}
	m, err := f.blob.ReadAt(f.ctx, f.ra.mem[:n], f.off)
	if err != nil && err != io.EOF {
		// The blob's answer for the bytes asked, which may be bytes
		// before the failure: read them alone.
		f.ra.buf = nil
		return f.blob.ReadAt(f.ctx, p, f.off)
	}
	f.ra.buf, f.ra.off = f.ra.mem[:m], f.off
	if m == 0 {
		return 0, err
	}
	return f.ra.take(p, f.off), nil
}
