package taradapter

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

const (
	blockSize = 512

	// maxMetaBytes bounds the header bytes (names, link names, pax
	// records) that one index keeps. archive/tar caps each pax header and
	// GNU long name at 1 MiB, and MaxEntries bounds the headers, but
	// their product would be a terabyte; this keeps one index of
	// hostile headers near the size of an honest index at MaxEntries.
	maxMetaBytes = 256 << 20

	// maxSparseMap bounds the bytes of one pax 1.0 sparse map, which
	// archive/tar reads from the data area before Next returns.
	maxSparseMap = 16 << 20

	// maxSpecial bounds the size of one pax header or GNU long name,
	// which archive/tar has already refused above 1 MiB; it keeps the
	// offsets that mainHeader adds up far from overflow.
	maxSpecial = 1 << 20
)

// scanReader reads the archive for archive/tar: a buffered reader over an
// io.ReaderAt whose position is exact, and which implements io.Seeker so
// that archive/tar skips member data with a seek instead of reading it.
// The position right after tar.Reader.Next returns is the offset of the
// member's data, since archive/tar reads headers block by block, straight
// from its reader, with no buffer of its own.
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
		default:
			return 0, err
		}
		s.buf, s.bufOff = s.buf[:m], s.pos
		s.hi = max(s.hi, s.pos+int64(m))
	}
	n := copy(p, s.buf[s.pos-s.bufOff:])
	s.pos += int64(n)
	return n, nil
}

// Seek moves the position. archive/tar seeks only relative to the
// current position (to skip member data); a seek past the end is not an
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
		err = io.ErrUnexpectedEOF
	}
	return err
}

// zeroBlock reports whether the block at off is all zeros.
func (s *scanReader) zeroBlock(off int64) (bool, error) {
	var blk [blockSize]byte
	if err := s.readAt(blk[:], off); err != nil {
		return false, err
	}
	return blk == [blockSize]byte{}, nil
}

// scan reads the whole archive in r and returns its raw members in
// archive order. size is the size of the archive, or -1 when it is not
// known yet: the scan then reads until r returns io.EOF. ctx is checked
// between headers.
func scan(ctx context.Context, r io.ReaderAt, size int64, lim vfs.Limits) (*scanned, error) {
	s := &scanReader{r: r, end: max(size, -1), beyond: -1}
	tr := tar.NewReader(s)
	out := new(scanned)
	var meta int64
	var next int64   // where the next header starts
	var prev *member // the member before next, if it stores data
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// archive/tar skips the data of the previous member at the start
		// of Next, so the position now may be inside that data.
		start := next
		hdr, err := tr.Next()
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			// archive/tar reports io.EOF for an archive that ends
			// right after a member with no end-of-archive zero block,
			// and for one cut inside the padding of a pax header or
			// long name. Refuse both: a truncated archive must not
			// pass for a shorter one. What follows a whole zero block
			// (a second one, cut short) does not matter.
			if zero, zerr := s.zeroBlock(start); zerr == nil && zero {
				break
			}
			if err == io.EOF {
				return nil, driver.Corruptf("truncated: no end-of-archive marker at offset %d", start)
			}
		}
		if err != nil {
			if prev != nil && s.pastEnd(prev.dataOff+prev.packed) {
				return nil, pastEnd(prev, s.end) // found when skipping its data
			}
			return nil, tarErr(ctx, err, start)
		}
		if len(out.members) >= lim.MaxEntries {
			return nil, driver.Limitf("archive has more than %d entries (raise Options.Limits.MaxEntries)", lim.MaxEntries)
		}
		for _, name := range []string{hdr.Name, hdr.Linkname} {
			if len(name) > lim.MaxNameLength {
				return nil, driver.Limitf("header at offset %d has a name of %d bytes, over the limit of %d (raise Options.Limits.MaxNameLength)",
					start, len(name), lim.MaxNameLength)
			}
		}
		meta += int64(len(hdr.Name) + len(hdr.Linkname) + len(hdr.Uname) + len(hdr.Gname) + 64)
		for k, v := range hdr.PAXRecords {
			meta += int64(len(k) + len(v) + 16)
		}
		if meta > maxMetaBytes {
			return nil, driver.Limitf("archive headers hold more than %d MiB of names and pax records", maxMetaBytes>>20)
		}
		m := member{hdr: hdr, hdrOff: start, dataOff: s.pos, size: hdr.Size}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			// archive/tar has read its records; only padding is left.
			next = roundUp(s.pos)
			out.globals = append(out.globals, hdr)
			continue
		}
		if !storesData(hdr.Typeflag) {
			m.size = 0
		}
		if isSparse(hdr) {
			frags, packed, err := sparseMap(s, hdr, start, s.pos)
			if err != nil {
				return nil, err
			}
			m.frags, m.packed = frags, packed
		} else if storesData(hdr.Typeflag) {
			m.packed = hdr.Size
		}
		if s.pastEnd(m.dataOff + m.packed) {
			return nil, pastEnd(&m, s.end)
		}
		next = roundUp(m.dataOff + m.packed)
		out.members = append(out.members, m)
		prev = &out.members[len(out.members)-1]
	}
	out.reads = s.reads
	return out, nil
}

// pastEnd reports whether off is known to lie past the end of the
// archive.
func (s *scanReader) pastEnd(off int64) bool {
	if s.end >= 0 {
		return off > s.end
	}
	return s.beyond >= 0 && off > s.beyond
}

// pastEnd is the error of a member whose data runs past the end of the
// archive, of size bytes (-1 when not known).
func pastEnd(m *member, size int64) error {
	if size < 0 {
		return driver.Corruptf("member %q at offset %d: its %d bytes of data run past the end of the archive",
			m.hdr.Name, m.hdrOff, m.packed)
	}
	return driver.Corruptf("member %q at offset %d: its %d bytes of data run past the end of the %d-byte archive",
		m.hdr.Name, m.hdrOff, m.packed, size)
}

// roundUp rounds n up to a whole number of blocks.
func roundUp(n int64) int64 { return (n + blockSize - 1) &^ (blockSize - 1) }

// storesData reports whether archive/tar reads a data area of Size bytes
// after a header of type t. Links, directories, devices and FIFOs have
// none (archive/tar sets their Size to 0 and skips what a writer put
// there), every other type, known or not, is a regular file.
func storesData(t byte) bool {
	switch t {
	case tar.TypeLink, tar.TypeSymlink, tar.TypeChar, tar.TypeBlock, tar.TypeDir, tar.TypeFifo:
		return false
	}
	return true
}

// tarErr turns an archive/tar error into one matching driver.ErrCorrupt,
// unless the context or the blob failed.
func tarErr(ctx context.Context, err error, off int64) error {
	if ctx.Err() != nil {
		return err
	}
	switch {
	case errors.Is(err, tar.ErrHeader), errors.Is(err, io.ErrUnexpectedEOF), err == io.EOF:
		return driver.Corruptf("bad or truncated header at offset %d: %v", off, err)
	case errors.Is(err, tar.ErrFieldTooLong):
		return driver.Limitf("header at offset %d: a pax header or GNU long name is over archive/tar's 1 MiB cap: %v", off, err)
	case strings.HasPrefix(err.Error(), "archive/tar: "):
		return driver.Corruptf("header at offset %d: %v", off, err)
	}
	return fmt.Errorf("reading header at offset %d: %w", off, err)
}

// A member is one header of the archive as scanned, before naming rules.
type member struct {
	hdr     *tar.Header
	hdrOff  int64      // offset of the first header block of the member
	dataOff int64      // offset of the data area (after a pax 1.0 sparse map)
	size    int64      // logical size
	packed  int64      // bytes stored in the data area
	frags   []fragment // sparse map, nil unless sparse
}

// scanned is the result of a scan.
type scanned struct {
	members []member
	globals []*tar.Header
	reads   int
}

// A fragment is one data region of a sparse file: Length bytes at logical
// offset Offset, stored at Packed bytes into the data area (after the
// previous fragments).
type fragment struct {
	Offset, Length, Packed int64
}

// isSparse reports whether archive/tar read hdr as a sparse file.
func isSparse(hdr *tar.Header) bool {
	if hdr.Typeflag == tar.TypeGNUSparse {
		return true
	}
	if hdr.Typeflag != tar.TypeReg {
		return false
	}
	_, ok := hdr.PAXRecords["GNU.sparse.map"]
	return ok || hdr.PAXRecords["GNU.sparse.major"] == "1"
}

// sparseMap recovers the sparse map that archive/tar parsed but does not
// expose: from the pax records (formats 0.0 and 0.1), from the old GNU
// header and its extension blocks, or from the text at the start of the
// data area (format 1.0). start is the offset of the member's first
// header block, dataOff the position after Next. It returns the fragments
// and the size of the packed data, checked against the logical size.
func sparseMap(s *scanReader, hdr *tar.Header, start, dataOff int64) ([]fragment, int64, error) {
	bad := func(format string, args ...any) error {
		return driver.Corruptf("sparse member %q at offset %d: %s", hdr.Name, start, fmt.Sprintf(format, args...))
	}
	// The size field of the main header is what the data area holds
	// (the packed data, after the map in format 1.0); archive/tar
	// skips that much to reach the next header.
	blk := make([]byte, blockSize)
	main, err := mainHeader(s, start, blk)
	if err != nil {
		return nil, 0, err
	}
	raw, ok := parseNumeric(blk[124:136])
	stored := raw - (dataOff - main - blockSize)
	if !ok || stored < 0 {
		return nil, 0, bad("bad size field")
	}
	var nums []int64
	switch {
	case hdr.Typeflag == tar.TypeGNUSparse:
		// Old GNU: 4 entries of (offset, length) at 386, "isextended"
		// at 482; each extension block has 21 entries and its flag at
		// 504. An entry whose offset starts with NUL ends the list.
		entries, ext, off := blk[386:482], blk[482], main+blockSize
		for {
			for i := 0; i+24 <= len(entries); i += 24 {
				if entries[i] == 0 {
					break
				}
				o, ok1 := parseNumeric(entries[i : i+12])
				n, ok2 := parseNumeric(entries[i+12 : i+24])
				if !ok1 || !ok2 {
					return nil, 0, bad("bad sparse entry")
				}
				nums = append(nums, o, n)
			}
			if ext == 0 {
				break
			}
			if off >= dataOff {
				return nil, 0, bad("extension blocks run past the data")
			}
			if err := s.readAt(blk, off); err != nil {
				return nil, 0, err
			}
			entries, ext, off = blk[:504], blk[504], off+blockSize
		}
		if off != dataOff {
			return nil, 0, bad("sparse headers end at %d, data starts at %d", off, dataOff)
		}
	case hdr.PAXRecords["GNU.sparse.major"] == "1":
		// Format 1.0: the map is text at the start of the data area,
		// in whole blocks, which archive/tar has already consumed.
		mapOff := main + blockSize
		n := dataOff - mapOff
		if n <= 0 || n%blockSize != 0 {
			return nil, 0, bad("no sparse map between %d and %d", mapOff, dataOff)
		}
		if n > maxSparseMap {
			return nil, 0, driver.Limitf("sparse member %q at offset %d: sparse map of %d bytes is over %d MiB", hdr.Name, start, n, maxSparseMap>>20)
		}
		text := make([]byte, n)
		if err := s.readAt(text, mapOff); err != nil {
			return nil, 0, err
		}
		fields := strings.Split(string(text), "\n")
		count, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || count < 0 || 2*count+1 > int64(len(fields)) {
			return nil, 0, bad("bad sparse map header")
		}
		for _, f := range fields[1 : 1+2*count] {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, 0, bad("bad sparse map entry %q", f)
			}
			nums = append(nums, v)
		}
	default:
		// Formats 0.0 (archive/tar joins the repeated offset and
		// numbytes records into GNU.sparse.map) and 0.1.
		m := hdr.PAXRecords["GNU.sparse.map"]
		if m != "" {
			for f := range strings.SplitSeq(m, ",") {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return nil, 0, bad("bad sparse map entry %q", f)
				}
				nums = append(nums, v)
			}
		}
		if len(nums)%2 != 0 {
			return nil, 0, bad("odd sparse map")
		}
	}
	frags := make([]fragment, 0, len(nums)/2)
	var packed, end int64
	for i := 0; i+1 < len(nums); i += 2 {
		f := fragment{nums[i], nums[i+1], packed}
		if f.Offset < end || f.Length < 0 || f.Offset > hdr.Size || f.Length > hdr.Size-f.Offset {
			return nil, 0, bad("fragment [%d, +%d) overlaps, is out of order or past the size %d", f.Offset, f.Length, hdr.Size)
		}
		end = f.Offset + f.Length
		packed += f.Length
		if f.Length > 0 {
			frags = append(frags, f)
		}
	}
	if packed != stored {
		return nil, 0, bad("the sparse map covers %d bytes, the member stores %d", packed, stored)
	}
	return frags, packed, nil
}

// mainHeader walks the header blocks of the member starting at start past
// its pax ("x") and GNU long name ("L", "K") headers, reads the main
// header block into blk and returns its offset. archive/tar has parsed
// the same blocks already, so only their sizes are needed.
func mainHeader(s *scanReader, start int64, blk []byte) (int64, error) {
	off := start
	for range 1 << 10 {
		if err := s.readAt(blk, off); err != nil {
			return 0, err
		}
		switch blk[156] {
		case tar.TypeXHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
			n, ok := parseNumeric(blk[124:136])
			if !ok || n < 0 || n > maxSpecial || s.end >= 0 && n > s.end {
				return 0, driver.Corruptf("bad size in extended header at offset %d", off)
			}
			off += blockSize + (n+blockSize-1)/blockSize*blockSize
		default:
			return off, nil
		}
	}
	return 0, driver.Corruptf("too many extended headers at offset %d", start)
}
