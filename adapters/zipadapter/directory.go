package zipadapter

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// Record layouts of APPNOTE.TXT, as archive/zip names them.
const (
	localHeaderSig  = 0x04034b50
	dirHeaderSig    = 0x02014b50
	dirEndSig       = 0x06054b50
	dir64LocSig     = 0x07064b50
	dir64EndSig     = 0x06064b50
	localHeaderLen  = 30 // + name + extra
	dirHeaderLen    = 46 // + name + extra + comment
	dirEndLen       = 22 // + comment
	dir64LocLen     = 20
	dir64EndLen     = 56 // + extensible data
	zip64ExtraID    = 0x0001
	maxCommentLen   = 65535
	maxEndRecordLen = dirEndLen + maxCommentLen
)

// errNotZip is readEnd's error when no end of central directory record is
// found; Open words it with vfs.NotFormat.
var errNotZip = errors.New("no end of central directory record")

// An endRecord is what the end of central directory records (zip64 or not)
// say, with the base offset archive/zip derives from them.
type endRecord struct {
	records  uint64 // total number of central directory records
	dirSize  uint64 // size of the central directory
	dirStart int64  // absolute offset of the central directory (base included)
	base     int64  // offset of the zip proper in the blob (a prefix's length)
}

// readEnd finds and decodes the end of central directory record the way
// archive/zip's readDirectoryEnd does, so that the offsets computed here
// and the ones archive/zip uses agree byte for byte: the last signature in
// the last 1 KiB, else in the last 65 KiB, with a comment that fits; the
// zip64 records when the locator is there; the base offset of a prefixed
// archive; and archive/zip's fallback to base 0 when a central directory
// header is found at the unadjusted offset.
func readEnd(r io.ReaderAt, size int64) (*endRecord, error) {
	var buf []byte
	var endOff int64 = -1
	for i, n := range []int64{1024, 65 * 1024} {
		n = min(n, size)
		buf = make([]byte, n)
		if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
			return nil, err
		}
		if p := findEnd(buf); p >= 0 {
			buf = buf[p:]
			endOff = size - n + int64(p)
			break
		}
		if i == 1 || n == size {
			return nil, errNotZip
		}
	}
	le := binary.LittleEndian
	d := &endRecord{
		records: uint64(le.Uint16(buf[10:])),
		dirSize: uint64(le.Uint32(buf[12:])),
	}
	dirOff := uint64(le.Uint32(buf[16:]))
	if d.records == 0xffff || d.dirSize == 0xffff || dirOff == 0xffffffff {
		// Maybe zip64: the locator sits just before the record.
		if p, ok, err := readDir64Loc(r, endOff); err != nil {
			return nil, err
		} else if ok {
			var b [dir64EndLen]byte
			if _, err := r.ReadAt(b[:], p); err != nil {
				return nil, truncated("zip64 end of central directory record", p, err)
			}
			if le.Uint32(b[:]) != dir64EndSig {
				return nil, driver.Corruptf("no zip64 end of central directory record at offset %d", p)
			}
			d.records = le.Uint64(b[32:])
			d.dirSize = le.Uint64(b[40:])
			dirOff = le.Uint64(b[48:])
			endOff = p
		}
	}
	const maxInt64 = 1<<63 - 1
	if d.dirSize > maxInt64 || dirOff > maxInt64 {
		return nil, driver.Corruptf("central directory offset %d or size %d out of range", dirOff, d.dirSize)
	}
	d.base = endOff - int64(d.dirSize) - int64(dirOff)
	if o := d.base + int64(dirOff); o < 0 || o >= size {
		return nil, driver.Corruptf("central directory at offset %d is outside the %d-byte archive", o, size)
	}
	if d.base > 0 {
		// archive/zip: if a directory header is found assuming no
		// prefix, the end record's sizes were wrong, not the offsets.
		rs := bufio.NewReaderSize(io.NewSectionReader(r, int64(dirOff), size-int64(dirOff)), 512)
		var rec dirRecord
		if rec.read(rs, nil) == nil {
			d.base = 0
		}
	}
	d.dirStart = d.base + int64(dirOff)
	return d, nil
}

// findEnd is archive/zip's findSignatureInBlock: the last end record
// signature in b, or -1; a record whose comment would run past the end of b
// ends the search.
func findEnd(b []byte) int {
	for i := len(b) - dirEndLen; i >= 0; i-- {
		if b[i] == 'P' && b[i+1] == 'K' && b[i+2] == 0x05 && b[i+3] == 0x06 {
			n := int(b[i+dirEndLen-2]) | int(b[i+dirEndLen-1])<<8
			if n+dirEndLen+i > len(b) {
				return -1
			}
			return i
		}
	}
	return -1
}

// readDir64Loc reads the zip64 end of central directory locator before
// the end record at endOff, and returns the offset of the zip64 end record
// it points to, or ok false when there is no valid locator.
func readDir64Loc(r io.ReaderAt, endOff int64) (off int64, ok bool, err error) {
	p := endOff - dir64LocLen
	if p < 0 {
		return 0, false, nil
	}
	var b [dir64LocLen]byte
	if _, err := r.ReadAt(b[:], p); err != nil {
		return 0, false, truncated("zip64 end of central directory locator", p, err)
	}
	le := binary.LittleEndian
	if le.Uint32(b[:]) != dir64LocSig || le.Uint32(b[4:]) != 0 || le.Uint32(b[16:]) != 1 {
		return 0, false, nil
	}
	o := le.Uint64(b[8:])
	if o > 1<<63-1 {
		return 0, false, driver.Corruptf("zip64 end of central directory offset %d out of range", o)
	}
	return int64(o), true, nil
}

// A dirRecord holds the parts of one central directory header that the
// layout checks need.
type dirRecord struct {
	nameLen    int
	compressed uint64
	offset     int64 // local header offset, base not included
	len        int64 // length of the record
}

// read decodes one central directory header from r. It returns
// io.ErrUnexpectedEOF or errBadRecord where archive/zip's readDirectoryHeader
// returns io.ErrUnexpectedEOF or ErrFormat, so that both stop at the same
// record. scratch, if big enough, holds the variable-length fields.
func (d *dirRecord) read(r *bufio.Reader, scratch *[]byte) error {
	var b [dirHeaderLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return noEOF(err)
	}
	le := binary.LittleEndian
	if le.Uint32(b[:]) != dirHeaderSig {
		return errBadRecord
	}
	d.compressed = uint64(le.Uint32(b[20:]))
	usize := le.Uint32(b[24:])
	d.nameLen = int(le.Uint16(b[28:]))
	extraLen := int(le.Uint16(b[30:]))
	commentLen := int(le.Uint16(b[32:]))
	offset := le.Uint32(b[42:])
	d.offset = int64(offset)

	var buf []byte
	if scratch != nil {
		buf = *scratch
	}
	n := d.nameLen + extraLen + commentLen
	if cap(buf) < n {
		buf = make([]byte, n)
		if scratch != nil {
			*scratch = buf
		}
	}
	buf = buf[:n]
	d.len = dirHeaderLen + int64(n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return noEOF(err)
	}
	needU, needC, needO := usize == 0xffffffff, d.compressed == 0xffffffff, offset == 0xffffffff
	for extra := buf[d.nameLen : d.nameLen+extraLen]; len(extra) >= 4; {
		tag, size := le.Uint16(extra), int(le.Uint16(extra[2:]))
		extra = extra[4:]
		if len(extra) < size {
			break
		}
		field := extra[:size]
		extra = extra[size:]
		if tag != zip64ExtraID {
			continue
		}
		// Same order and rules as archive/zip: only the maxed-out
		// fields are present, uncompressed size first.
		if needU {
			needU = false
			if len(field) < 8 {
				return errBadRecord
			}
			field = field[8:]
		}
		if needC {
			needC = false
			if len(field) < 8 {
				return errBadRecord
			}
			d.compressed = le.Uint64(field)
			field = field[8:]
		}
		if needO {
			needO = false
			if len(field) < 8 {
				return errBadRecord
			}
			d.offset = int64(le.Uint64(field))
		}
	}
	if needC || needO {
		return errBadRecord
	}
	return nil
}

var errBadRecord = errors.New("bad central directory record")

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// A span is the byte range one entry claims, from its local header to the
// end of its compressed data, as the central directory declares it.
type span struct {
	start, end int64
	index      int // index in the central directory; -1 for the directory itself
}

// scanDirectory reads the central directory once, before archive/zip does,
// to enforce the entry and name limits before anything is allocated per
// entry, and to learn every local header offset (archive/zip keeps them
// unexported). It stops where archive/zip stops: at the first record that
// is not a valid header.
//
// It returns the spans of the entries in central directory order, and the
// number of bytes of central directory read.
func scanDirectory(r io.ReaderAt, size int64, end *endRecord, lim vfs.Limits) ([]span, int64, error) {
	// The declared count is a uint16 in a plain end record and may lie
	// either way; it is checked here so that an honest count over the limit
	// fails at once, and the records actually read are counted below.
	if end.records > uint64(lim.MaxEntries) {
		return nil, 0, entriesLimit(end.records, lim)
	}
	// Each record is at least 46 bytes: a count larger than the
	// directory allows is a lie, not a reason to preallocate.
	prealloc := min(end.records, end.dirSize/dirHeaderLen, 1<<16)
	spans := make([]span, 0, prealloc)
	rd := bufio.NewReaderSize(io.NewSectionReader(markedReaderAt{r}, end.dirStart, size-end.dirStart), 64<<10)
	var scratch []byte
	var rec dirRecord
	var err error
	var dirLen int64
	for {
		if err = rec.read(rd, &scratch); err != nil {
			break
		}
		if len(spans) >= lim.MaxEntries {
			return nil, 0, entriesLimit(uint64(len(spans))+1, lim)
		}
		if rec.nameLen > lim.MaxNameLength {
			return nil, 0, driver.Limitf("entry %d has a %d-byte name, over the limit of %d bytes (raise Options.Limits.MaxNameLength)",
				len(spans), rec.nameLen, lim.MaxNameLength)
		}
		start := end.base + rec.offset
		n := int64(rec.compressed)
		if start < 0 || rec.offset < 0 || n < 0 || start > size || size-start < localHeaderLen+int64(rec.nameLen)+n {
			return nil, 0, driver.Corruptf("entry %d claims bytes [%d, %d+%d) past the end of the %d-byte archive",
				len(spans), start, start, localHeaderLen+int64(rec.nameLen)+int64(rec.compressed), size)
		}
		spans = append(spans, span{start, start + localHeaderLen + int64(rec.nameLen) + n, len(spans)})
		dirLen += rec.len
	}
	var in *inputError
	if errors.As(err, &in) {
		return nil, 0, in.err // the blob failed, not the bytes
	}
	if err != errBadRecord && err != io.ErrUnexpectedEOF {
		return nil, 0, err
	}
	if uint16(len(spans)) != uint16(end.records) {
		// archive/zip's rule: only the low 16 bits of the count are
		// trusted, because old writers truncate it.
		return nil, 0, driver.Corruptf("central directory has %d readable records, end record says %d", len(spans), end.records)
	}
	return spans, dirLen, nil
}

func entriesLimit(n uint64, lim vfs.Limits) error {
	return driver.Limitf("archive has at least %d entries, over the limit of %d (raise Options.Limits.MaxEntries)", n, lim.MaxEntries)
}

// checkOverlap refuses archives whose entries share bytes: the "better zip
// bomb" points many central directory records at one compressed kernel,
// and no writer produces overlapping entries. It uses the central directory
// only (local header offset + 30 + name length + compressed size), so it
// costs no reads. It returns, for each entry, the offset where the next
// entry or the central directory starts: the entry's data must end there.
func checkOverlap(spans []span, dirStart, dirLen int64, names func(int) string) ([]int64, error) {
	all := make([]span, len(spans), len(spans)+1)
	copy(all, spans)
	all = append(all, span{dirStart, dirStart + dirLen, -1})
	slices.SortFunc(all, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	limits := make([]int64, len(spans))
	name := func(s span) string {
		if s.index < 0 {
			return "the central directory"
		}
		return fmt.Sprintf("entry %d %q", s.index, names(s.index))
	}
	for i, s := range all {
		next := int64(1<<63 - 1)
		if i+1 < len(all) {
			next = all[i+1].start
			if s.end > next {
				return nil, driver.Corruptf("%s [%d, %d) overlaps %s at offset %d (overlapping entries, a zip bomb?)",
					name(s), s.start, s.end, name(all[i+1]), next)
			}
		}
		if s.index >= 0 {
			limits[s.index] = next
		}
	}
	return limits, nil
}

// truncated describes a failed read of a structure at off.
func truncated(what string, off int64, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return driver.Corruptf("truncated: %s at offset %d", what, off)
	}
	return err
}
