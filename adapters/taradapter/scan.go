package taradapter

import (
	"archive/tar"
	"errors"
	"io"
)

const (
	blockSize = 512

	// maxMetaBytes bounds the header bytes (names, link names, pax
	// records) that one index keeps. maxSpecial caps each pax header and
	// GNU long name at 1 MiB, and MaxEntries bounds the headers, but
	// their product would be a terabyte; this keeps one index of
	// hostile headers near the size of an honest index at MaxEntries.
	maxMetaBytes = 256 << 20

	// maxSparseMap bounds the bytes of one pax 1.0 sparse map, read
	// from the start of the member's data area.
	maxSparseMap = 16 << 20

	// maxSpecial bounds the size of one pax header or GNU long name, as
	// archive/tar bounds it.
	maxSpecial = 1 << 20
)

// scanReader reads the archive for the parser: a buffered reader over an
// io.ReaderAt whose position is exact, and which implements io.Seeker so
// that the parser skips member data with a seek instead of reading it.
//
// The scan does not need the archive's size: it reads forward until the
// ReaderAt returns io.EOF. The size of a decompressed stream is known
// only once the stream has been decoded to its end, so asking for it
// before the scan would decode the stream twice; reading forward decodes
// it once, and the decoder learns the size (and builds its index) on the
// way. When the size is known, reads are checked against it.
type scanReader struct {
	r      io.ReaderAt
	end    int64 // the size of the archive, -1 until known
	hi     int64 // the end of the bytes read so far
	beyond int64 // an offset where a read found nothing, -1 if none
	pos    int64
	buf    []byte // the bytes at [bufOff, bufOff+len(buf))
	bufOff int64
	reads  int // ReadAt calls made
}

// scanBuffer is the read size of the scan: big enough that the headers
// of small members come a few dozen per read, small enough that skipping
// a large member wastes little.
const scanBuffer = 64 << 10

func (s *scanReader) Read(p []byte) (int, error) {
	if s.end >= 0 && s.pos >= s.end {
		return 0, io.EOF
	}
	if s.pos < s.bufOff || s.pos >= s.bufOff+int64(len(s.buf)) {
		if s.buf == nil {
			s.buf = make([]byte, scanBuffer)
		}
		n := cap(s.buf)
		if s.end >= 0 {
			n = int(min(int64(n), s.end-s.pos))
		}
		s.reads++
		m, err := s.r.ReadAt(s.buf[:n], s.pos)
		s.buf = s.buf[:0]
		switch {
		case m == n:
		case err == io.EOF && s.end < 0:
			// The end of the archive: exactly here when some bytes
			// came or the read starts where the last one ended; at
			// or before pos when it starts further on (after a seek).
			if m > 0 || s.pos == s.hi {
				s.end = s.pos + int64(m)
			} else if s.beyond < 0 || s.pos < s.beyond {
				s.beyond = s.pos
			}
			if m == 0 {
				return 0, io.EOF
			}
		case err == nil || err == io.EOF:
			return 0, io.ErrUnexpectedEOF // the blob is shorter than its size
		case m == 0:
			return 0, &belowError{err}
		default:
			// Keep the bytes that came before the error (a stream
			// below that is cut short or damaged further on): the
			// read that needs what follows them gets the error.
		}
		s.buf, s.bufOff = s.buf[:m], s.pos
		s.hi = max(s.hi, s.pos+int64(m))
	}
	n := copy(p, s.buf[s.pos-s.bufOff:])
	s.pos += int64(n)
	return n, nil
}

// Seek moves the position. A seek past the end is not an
// error, the read there is. Seeking from the end needs the size, so it
// fails while the size is not known.
func (s *scanReader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += s.pos
	case io.SeekEnd:
		if s.end < 0 {
			return 0, errors.New("taradapter: seek from an end not known yet")
		}
		off += s.end
	default:
		return 0, errors.New("taradapter: bad whence")
	}
	if off < 0 {
		return 0, errors.New("taradapter: negative position")
	}
	s.pos = off
	return off, nil
}

// readAt reads exactly len(p) bytes at off, through the buffer when it
// holds them.
func (s *scanReader) readAt(p []byte, off int64) error {
	if off >= s.bufOff && off+int64(len(p)) <= s.bufOff+int64(len(s.buf)) {
		copy(p, s.buf[off-s.bufOff:])
		return nil
	}
	if off < 0 || s.end >= 0 && off+int64(len(p)) > s.end {
		return io.ErrUnexpectedEOF
	}
	s.reads++
	n, err := s.r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return &belowError{err}
}

// A belowError is an error of what the archive is read from (an I/O
// error, a damaged compressed stream below it), as opposed to one of the
// archive's own bytes.
type belowError struct{ err error }

func (e *belowError) Error() string { return e.err.Error() }
func (e *belowError) Unwrap() error { return e.err }

// roundUp rounds n up to a whole number of blocks.
func roundUp(n int64) int64 { return (n + blockSize - 1) &^ (blockSize - 1) }

// storesData reports whether a data area of Size bytes follows a header
// of type t. Links, directories, devices and FIFOs have none: their Size
// is read as 0 and the next header follows at once, as archive/tar reads
// them. Every other type, known or not, is a regular file.
func storesData(t byte) bool {
	switch t {
	case tar.TypeLink, tar.TypeSymlink, tar.TypeChar, tar.TypeBlock, tar.TypeDir, tar.TypeFifo:
		return false
	}
	return true
}

// A member is one header of the archive as scanned, before naming rules.
type member struct {
	hdr     *tar.Header
	hdrOff  int64      // offset of the first header block of the member
	dataOff int64      // offset of the data area (after a pax 1.0 sparse map)
	size    int64      // logical size
	packed  int64      // bytes stored in the data area
	frags   []fragment // sparse map, nil unless sparse
	short   bool       // the archive ends inside the data
}

// scanned is the result of a scan.
type scanned struct {
	members []member
	globals []*tar.Header
	reads   int
	end     *earlyEnd // where the listing ended early, nil if it did not
}

// A fragment is one data region of a sparse file: Length bytes at logical
// offset Offset, stored at Packed bytes into the data area (after the
// previous fragments).
type fragment struct {
	Offset, Length, Packed int64
}
