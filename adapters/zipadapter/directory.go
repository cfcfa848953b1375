package zipadapter

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"unsafe"

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
		ok, err := isHeaderAt(r, int64(dirOff), size)
		if err != nil {
			return nil, err
		}
		if ok {
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

// A header is one central directory record, decoded as archive/zip's
// readDirectoryHeader decodes it: the sizes and the local header offset
// come from the zip64 extra field when their 32-bit fields are maxed out.
// Its strings point into the directory's bytes.
type header struct {
	creator, reader, flags uint16
	method, mtime, mdate   uint16
	crc, attrs             uint32
	csize32, usize32       uint32 // as the record has them
	csize, usize           uint64 // from the zip64 field if need be
	offset                 int64  // of the local header, base not included
	name, extra, comment   string
	len                    int // of the whole record
}

func le16(s string, i int) uint16 { return uint16(s[i]) | uint16(s[i+1])<<8 }
func le32(s string, i int) uint32 { return uint32(le16(s, i)) | uint32(le16(s, i+2))<<16 }
func le64(s string, i int) uint64 { return uint64(le32(s, i)) | uint64(le32(s, i+4))<<32 }

// parseHeader decodes the record at pos in d, the bytes of a central
// directory. It fails where archive/zip's readDirectoryHeader fails, with
// the same error: io.ErrUnexpectedEOF or errBadRecord, where archive/zip
// stops reading records; io.EOF, where archive/zip fails to open the
// archive, when the record's fixed part or its variable part would start
// exactly at the end of d.
func parseHeader(d string, pos int) (header, error) {
	var h header
	b := d[pos:]
	switch {
	case len(b) == 0:
		return h, io.EOF
	case len(b) < dirHeaderLen:
		return h, io.ErrUnexpectedEOF
	case le32(b, 0) != dirHeaderSig:
		return h, errBadRecord
	}
	h.creator = le16(b, 4)
	h.reader = le16(b, 6)
	h.flags = le16(b, 8)
	h.method = le16(b, 10)
	h.mtime = le16(b, 12)
	h.mdate = le16(b, 14)
	h.crc = le32(b, 16)
	csize, usize := le32(b, 20), le32(b, 24)
	h.csize32, h.usize32 = csize, usize
	h.csize, h.usize = uint64(csize), uint64(usize)
	nameLen, extraLen, commentLen := int(le16(b, 28)), int(le16(b, 30)), int(le16(b, 32))
	h.attrs = le32(b, 38)
	offset := le32(b, 42)
	h.offset = int64(offset)
	n := nameLen + extraLen + commentLen
	switch avail := len(b) - dirHeaderLen; {
	case avail < n && avail == 0:
		return h, io.EOF
	case avail < n:
		return h, io.ErrUnexpectedEOF
	}
	v := b[dirHeaderLen : dirHeaderLen+n]
	h.name, h.extra, h.comment = v[:nameLen], v[nameLen:nameLen+extraLen], v[nameLen+extraLen:]
	h.len = dirHeaderLen + n

	needU, needC, needO := usize == 0xffffffff, csize == 0xffffffff, offset == 0xffffffff
	for extra := h.extra; len(extra) >= 4; {
		tag, size := le16(extra, 0), int(le16(extra, 2))
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
				return h, errBadRecord
			}
			h.usize = le64(field, 0)
			field = field[8:]
		}
		if needC {
			needC = false
			if len(field) < 8 {
				return h, errBadRecord
			}
			h.csize = le64(field, 0)
			field = field[8:]
		}
		if needO {
			needO = false
			if len(field) < 8 {
				return h, errBadRecord
			}
			h.offset = int64(le64(field, 0))
		}
	}
	// archive/zip accepts an uncompressed size of 2³²-1 with no zip64
	// field (42.zip has one), but not the other two.
	if needC || needO {
		return h, errBadRecord
	}
	return h, nil
}

var errBadRecord = errors.New("bad central directory record")

// isHeaderAt reports whether a valid central directory record starts at
// off in r, a blob of size bytes.
func isHeaderAt(r io.ReaderAt, off, size int64) (bool, error) {
	b := make([]byte, min(size-off, dirHeaderLen))
	if _, err := r.ReadAt(b, off); err != nil && err != io.EOF {
		return false, err
	}
	if len(b) == dirHeaderLen && binary.LittleEndian.Uint32(b) == dirHeaderSig {
		le := binary.LittleEndian
		n := int64(le.Uint16(b[28:])) + int64(le.Uint16(b[30:])) + int64(le.Uint16(b[32:]))
		b = append(b, make([]byte, min(n, size-off-dirHeaderLen))...)
		if _, err := r.ReadAt(b[dirHeaderLen:], off+dirHeaderLen); err != nil && err != io.EOF {
			return false, err
		}
	}
	_, err := parseHeader(string(b), 0)
	return err == nil, nil
}

// A record is one central directory record that Open read.
type record struct {
	pos int   // where the record starts in Archive.dir
	hdr int64 // absolute offset of its local header
	// next is where the next entry or the central directory starts: the
	// entry's data must end there. readDirectory sets it to where the
	// entry's span ends, from its local header to the end of its
	// compressed data as the central directory declares it, and
	// checkOverlap to its final value.
	next int64
}

// Reading the central directory.
const (
	// minDirRead is the least readDirectory reads at once, whatever
	// Limits.MaxDocument says.
	minDirRead = 64 << 10
	// maxRecordLen is the longest a central directory record can be.
	maxRecordLen = dirHeaderLen + 3*0xffff
	// maxDirLen is the longest central directory read: the index
	// points into it with 32-bit offsets.
	maxDirLen = math.MaxUint32
)

// readDirectory reads the central directory in as few reads as it can:
// the bytes from its start to the end of the blob, which hold every record
// archive/zip could read, in one read when they are within
// Limits.MaxDocument. Past that, the bytes are read as the records need
// them, in a buffer at most about twice the size of the records read. The
// records are checked on the way, against the entry and name limits and
// the size of the blob, before anything is allocated per entry. It stops
// where archive/zip stops: at the first record that is not a valid header.
//
// read reads the bytes of the blob at offset off from the directory's
// start, as driver.Blob.ReadAt does: the directory kept on disk is read
// again through it (see persist.go).
//
// It returns the directory's bytes, the records in central directory
// order, and where the last record ends.
func readDirectory(ctx context.Context, read dirReader, size int64, end *endRecord, lim vfs.Limits) (string, []record, int64, error) {
	// The declared count is a uint16 in a plain end record and may lie
	// either way; it is checked here so that an honest count over the limit
	// fails at once, and the records actually read are counted below.
	maxEntries := min(lim.MaxEntries, math.MaxInt32)
	if end.records > uint64(maxEntries) {
		return "", nil, 0, entriesLimit(end.records, lim)
	}
	total := size - end.dirStart
	var buf []byte
	short := false // the blob ended before its size
	var d string
	load := func(n int64) error {
		n = min(n, total, maxDirLen)
		if n <= int64(len(buf)) {
			return fmt.Errorf("central directory of more than %d bytes: %w", maxDirLen, errors.ErrUnsupported)
		}
		old := len(buf)
		grown := make([]byte, n)
		copy(grown, buf)
		got, err := read(ctx, grown[old:], int64(old))
		if err != nil && err != io.EOF {
			return err
		}
		if got < len(grown)-old {
			grown, short = grown[:old+got], true
		}
		// Nothing writes to grown from here on: the string shares its
		// bytes, and the records and names point into it.
		buf, d = grown, unsafe.String(unsafe.SliceData(grown), len(grown))
		return nil
	}
	if err := load(max(lim.MaxDocument, minDirRead)); err != nil {
		return "", nil, 0, err
	}
	// Each record is at least 46 bytes: a count larger than the bytes
	// read allow is a lie, not a reason to preallocate.
	prealloc := min(end.records, uint64(len(d)/dirHeaderLen))
	recs := make([]record, 0, prealloc)
	pos := 0
	var err error
	for {
		var h header
		h, err = parseHeader(d, pos)
		if (err == io.EOF || err == io.ErrUnexpectedEOF) && !short && int64(len(d)) < total {
			if err = load(max(2*int64(len(d)), int64(pos)+maxRecordLen)); err != nil {
				return "", nil, 0, err
			}
			continue
		}
		if err != nil {
			break
		}
		if len(recs) >= maxEntries {
			return "", nil, 0, entriesLimit(uint64(len(recs))+1, lim)
		}
		if len(h.name) > lim.MaxNameLength {
			return "", nil, 0, driver.Limitf("entry %d has a %d-byte name, over the limit of %d bytes (raise Options.Limits.MaxNameLength)",
				len(recs), len(h.name), lim.MaxNameLength)
		}
		start := end.base + h.offset
		n := int64(h.csize)
		if start < 0 || h.offset < 0 || n < 0 || start > size || size-start < localHeaderLen+int64(len(h.name))+n {
			return "", nil, 0, driver.Corruptf("entry %d claims bytes [%d, %d+%d) past the end of the %d-byte archive",
				len(recs), start, start, localHeaderLen+int64(len(h.name))+int64(h.csize), size)
		}
		recs = append(recs, record{pos: pos, hdr: start, next: start + localHeaderLen + int64(len(h.name)) + n})
		pos += h.len
	}
	if err == io.EOF {
		// archive/zip fails here rather than stop.
		return "", nil, 0, driver.Corruptf("truncated: central directory record %d at offset %d", len(recs), end.dirStart+int64(pos))
	}
	if uint16(len(recs)) != uint16(end.records) {
		// archive/zip's rule: only the low 16 bits of the count are
		// trusted, because old writers truncate it.
		return "", nil, 0, driver.Corruptf("central directory has %d readable records, end record says %d", len(recs), end.records)
	}
	return d, recs, end.dirStart + int64(pos), nil
}

// A dirReader reads the bytes of a central directory at off from its
// start, with the contract of driver.Blob.ReadAt.
type dirReader func(ctx context.Context, p []byte, off int64) (int, error)

func entriesLimit(n uint64, lim vfs.Limits) error {
	return driver.Limitf("archive has at least %d entries, over the limit of %d (raise Options.Limits.MaxEntries)", n, lim.MaxEntries)
}

// checkOverlap refuses archives whose entries share bytes: the "better zip
// bomb" points many central directory records at one compressed kernel,
// and no writer produces overlapping entries. It uses the central directory
// only (local header offset + 30 + name length + compressed size), so it
// costs no reads. recs are those of readDirectory, and the central
// directory spans [dirStart, dirEnd). It sets the next field of each
// record.
func checkOverlap(recs []record, dirStart, dirEnd int64, names func(int) string) error {
	// The spans in order of (start, end): the records in their order when
	// it is that (most archives), else in the order of a permutation; and
	// the central directory's own where it sorts among them.
	var order []int32
	if !slices.IsSortedFunc(recs, compareRecords) {
		order = make([]int32, len(recs))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(i, j int32) int { return compareRecords(recs[i], recs[j]) })
	}
	rec := func(k int) int {
		if order != nil {
			return int(order[k])
		}
		return k
	}
	dir := record{hdr: dirStart, next: dirEnd}
	at := sort.Search(len(recs), func(k int) bool { return compareRecords(recs[rec(k)], dir) >= 0 })
	span := func(k int) (start, end int64, index int) {
		switch {
		case k < at:
			i := rec(k)
			return recs[i].hdr, recs[i].next, i
		case k == at:
			return dirStart, dirEnd, -1
		}
		i := rec(k - 1)
		return recs[i].hdr, recs[i].next, i
	}
	name := func(i int) string {
		if i < 0 {
			return "the central directory"
		}
		return fmt.Sprintf("entry %d %q", i, names(i))
	}
	for k := range len(recs) + 1 {
		start, end, i := span(k)
		next := int64(1<<63 - 1)
		if k < len(recs) {
			n, _, j := span(k + 1)
			if end > n {
				return driver.Corruptf("%s [%d, %d) overlaps %s at offset %d (overlapping entries, a zip bomb?)",
					name(i), start, end, name(j), n)
			}
			next = n
		}
		if i >= 0 {
			recs[i].next = next
		}
	}
	return nil
}

// compareRecords orders records by their spans, before checkOverlap.
func compareRecords(a, b record) int {
	return cmp.Or(cmp.Compare(a.hdr, b.hdr), cmp.Compare(a.next, b.next))
}

// truncated describes a failed read of a structure at off.
func truncated(what string, off int64, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return driver.Corruptf("truncated: %s at offset %d", what, off)
	}
	return err
}
