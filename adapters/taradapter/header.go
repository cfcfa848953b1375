package taradapter

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// An early end is where the listing of an archive stopped before an
// end-of-archive marker or the end of the data: bytes that cannot be a
// header, a header cut short, or a stream below that failed with corrupt
// data. The members before it are kept.
type earlyEnd struct {
	off  int64
	err  error
	name string // the member the end lies in, "" if none
}

// scan reads the whole archive in r and returns its raw members in
// archive order. size is the size of the archive, or -1 when it is not
// known yet: the scan then reads until r returns io.EOF. ctx is checked
// between headers.
//
// The archive ends at its first zero block, or at the end of the data
// when it ends at a header boundary. Bytes that cannot be a header end it
// too, with everything before them kept (scanned.end says where and why),
// unless they are the first header: then the data is not a tar archive,
// and the scan fails. The context, an I/O error and a limit fail the scan.
func scan(ctx context.Context, r io.ReaderAt, size int64, lim vfs.Limits) (*scanned, error) {
	p := &parser{s: &scanReader{r: r, end: max(size, -1), beyond: -1}, lim: lim}
	out := new(scanned)
	var off int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, next, err := p.next(off)
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil || !errors.Is(err, driver.ErrCorrupt) {
				return nil, err // the context, the blob, or a limit
			}
			if len(out.members) == 0 && len(out.globals) == 0 {
				return nil, err // not a tar archive
			}
			out.end = &earlyEnd{off: off, err: err}
			break
		}
		if len(out.members)+len(out.globals) >= lim.MaxEntries {
			return nil, driver.Limitf("archive has more than %d entries (raise Options.Limits.MaxEntries)", lim.MaxEntries)
		}
		if m.hdr.Typeflag == tar.TypeXGlobalHeader {
			out.globals = append(out.globals, m.hdr)
		} else if m.hdr.Typeflag != 'V' { // a GNU volume label names no file
			out.members = append(out.members, m)
		}
		off = next
	}
	// The last member's data must be there: the end of the data may lie
	// inside it rather than at the header boundary after it.
	if n := len(out.members); n > 0 {
		last := &out.members[n-1]
		if end := last.dataOff + last.packed; last.packed > 0 && !p.has(end) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			last.short = true
			if out.end == nil {
				out.end = &earlyEnd{off: last.hdrOff, err: pastEnd(last, p.s.end), name: last.hdr.Name}
			}
		}
	}
	out.reads = p.s.reads
	return out, nil
}

// has reports whether the archive holds the byte before off.
func (p *parser) has(off int64) bool {
	if off <= 0 {
		return true
	}
	if p.s.end >= 0 {
		return off <= p.s.end
	}
	if off <= p.s.hi {
		return true // read already
	}
	var b [1]byte
	return p.s.readAt(b[:], off-1) == nil
}

// pastEnd is the error of a member whose data runs past the end of the
// archive, of size bytes (-1 when not known).
func pastEnd(m *member, size int64) error {
	if size < 0 {
		return driver.Corruptf("member %q at offset %d: the archive ends inside its %d bytes of data (truncated)",
			m.hdr.Name, m.hdrOff, m.packed)
	}
	return driver.Corruptf("member %q at offset %d: its %d bytes of data run past the end of the %d-byte archive (truncated)",
		m.hdr.Name, m.hdrOff, m.packed, size)
}

// A parser reads tar headers: ustar, pax, GNU and V7, as bsdtar reads
// them.
type parser struct {
	s    *scanReader
	lim  vfs.Limits
	meta int64 // header bytes kept so far, against maxMetaBytes
	blk  [blockSize]byte
}

// block reads the block at off into p.blk. It returns io.EOF when the
// archive ends exactly at off.
func (p *parser) block(off int64) error {
	if _, err := p.s.Seek(off, io.SeekStart); err != nil {
		return err
	}
	_, err := io.ReadFull(p.s, p.blk[:])
	if err == io.ErrUnexpectedEOF {
		return driver.Corruptf("truncated: the archive ends inside the header block at offset %d", off)
	}
	return err
}

// special reads the n-byte data of a pax header or GNU long name whose
// header is at off.
func (p *parser) special(off, n int64) ([]byte, error) {
	if n < 0 {
		return nil, driver.Corruptf("header at offset %d: negative size", off)
	}
	if n > maxSpecial {
		return nil, driver.Limitf("header at offset %d: a pax header or GNU long name of %d bytes is over the cap of %d MiB", off, n, maxSpecial>>20)
	}
	buf := make([]byte, n)
	if _, err := p.s.Seek(off+blockSize, io.SeekStart); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(p.s, buf); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = driver.Corruptf("truncated: the archive ends inside the extended header at offset %d", off)
		}
		return nil, err
	}
	return buf, nil
}

// next reads the member whose first header block (a pax header, a GNU
// long name, or the main header) is at off. It returns the member and
// the offset of the next header, or io.EOF at the end of the archive.
// A pax global header and a GNU volume label come back as members of
// their own type.
func (p *parser) next(off int64) (member, int64, error) {
	start := off
	var (
		pax                  map[string]string
		longName, longLink   *string
		paxSeen, specialSeen bool
	)
	for range 1 << 10 {
		if err := p.block(off); err != nil {
			if err == io.EOF && specialSeen {
				err = driver.Corruptf("truncated: the archive ends after the extended header at offset %d", start)
			}
			return member{}, 0, err
		}
		b := p.blk[:]
		if bytes.Equal(b, zeros[:]) {
			if specialSeen {
				return member{}, 0, driver.Corruptf("header at offset %d: an extended header is followed by a zero block", start)
			}
			return member{}, 0, io.EOF
		}
		if !checksumOK(b) {
			return member{}, 0, driver.Corruptf("bad header at offset %d: not a tar header (checksum mismatch)", off)
		}
		size, ok := parseNumeric(b[124:136])
		if !ok || size < 0 {
			return member{}, 0, driver.Corruptf("bad header at offset %d: bad size field %q", off, b[124:136])
		}
		switch b[156] {
		case tar.TypeXHeader, tar.TypeXGlobalHeader, tar.TypeGNULongName, tar.TypeGNULongLink, 'X':
			typ := b[156]
			data, err := p.special(off, size)
			if err != nil {
				return member{}, 0, err
			}
			if err := p.charge(int64(len(data))); err != nil {
				return member{}, 0, err
			}
			next := off + blockSize + roundUp(size)
			switch typ {
			case tar.TypeXGlobalHeader:
				h := &tar.Header{Typeflag: typ, Name: cstring(b[0:100]), Size: size, PAXRecords: parsePAX(data), Format: tar.FormatPAX}
				return member{hdr: h, hdrOff: start, dataOff: off + blockSize}, next, nil
			case tar.TypeGNULongName, tar.TypeGNULongLink:
				s := cstring(data)
				if len(s) > p.lim.MaxNameLength {
					return member{}, 0, p.nameLimit(off, len(s))
				}
				if typ == tar.TypeGNULongName {
					longName = &s
				} else {
					longLink = &s
				}
			default: // 'x', and Solaris's 'X'
				// Only the last of consecutive pax headers counts, for
				// archive/tar and bsdtar alike.
				pax = parsePAX(data)
				paxSeen = true
			}
			specialSeen = true
			off = next
			continue
		}
		m, err := p.mainHeader(start, off, size, pax, paxSeen)
		if err != nil {
			return member{}, 0, err
		}
		if longName != nil {
			m.hdr.Name = *longName
		}
		if longLink != nil {
			m.hdr.Linkname = *longLink
		}
		for _, name := range []string{m.hdr.Name, m.hdr.Linkname} {
			if len(name) > p.lim.MaxNameLength {
				return member{}, 0, p.nameLimit(start, len(name))
			}
		}
		cost := int64(len(m.hdr.Name) + len(m.hdr.Linkname) + len(m.hdr.Uname) + len(m.hdr.Gname) + 64)
		for k, v := range m.hdr.PAXRecords {
			cost += int64(len(k) + len(v) + 16)
		}
		if err := p.charge(cost); err != nil {
			return member{}, 0, err
		}
		return m, roundUp(m.dataOff + m.packed), nil
	}
	return member{}, 0, driver.Corruptf("too many extended headers at offset %d", start)
}

var zeros [blockSize]byte

func (p *parser) nameLimit(off int64, n int) error {
	return driver.Limitf("header at offset %d has a name of %d bytes, over the limit of %d (raise Options.Limits.MaxNameLength)",
		off, n, p.lim.MaxNameLength)
}

// charge counts n bytes of names and records against maxMetaBytes.
func (p *parser) charge(n int64) error {
	if p.meta += n; p.meta > maxMetaBytes {
		return driver.Limitf("archive headers hold more than %d MiB of names and pax records", maxMetaBytes>>20)
	}
	return nil
}

// mainHeader parses the main header block in p.blk, at off, of the member
// that starts at start, with the pax records that came before it, and
// reads its sparse map if it has one.
func (p *parser) mainHeader(start, off, size int64, pax map[string]string, paxSeen bool) (member, error) {
	b := p.blk[:]
	h := &tar.Header{
		Typeflag: b[156],
		Name:     cstring(b[0:100]),
		Linkname: cstring(b[157:257]),
		Size:     size,
		Mode:     lenient(b[100:108]),
		Uid:      int(lenient(b[108:116])),
		Gid:      int(lenient(b[116:124])),
		ModTime:  time.Unix(lenient(b[136:148]), 0),
		Format:   tar.FormatUnknown,
	}
	magic := string(b[257:265])
	switch {
	case magic == "ustar  \x00": // GNU: no prefix; atime and ctime instead
		h.Format = tar.FormatGNU
		h.Uname, h.Gname = cstring(b[265:297]), cstring(b[297:329])
		h.Devmajor, h.Devminor = lenient(b[329:337]), lenient(b[337:345])
		if t := lenient(b[345:357]); t != 0 {
			h.AccessTime = time.Unix(t, 0)
		}
		if t := lenient(b[357:369]); t != 0 {
			h.ChangeTime = time.Unix(t, 0)
		}
	case magic[:6] == "ustar\x00":
		h.Format = tar.FormatUSTAR
		h.Uname, h.Gname = cstring(b[265:297]), cstring(b[297:329])
		h.Devmajor, h.Devminor = lenient(b[329:337]), lenient(b[337:345])
		prefix := b[345:500]
		if string(b[508:512]) == "tar\x00" { // star: a shorter prefix, then times
			prefix = b[345:476]
		}
		if pre := cstring(prefix); pre != "" {
			h.Name = pre + "/" + h.Name
		}
	}
	if h.Typeflag == 0 { // V7's regular file, or a directory by its "/"
		h.Typeflag = tar.TypeReg
		if strings.HasSuffix(h.Name, "/") {
			h.Typeflag = tar.TypeDir
		}
	}
	if paxSeen {
		h.Format = tar.FormatPAX
		h.PAXRecords = pax
		mergePAX(h, pax)
	}
	m := member{hdr: h, hdrOff: start, dataOff: off + blockSize, size: h.Size}
	if !storesData(h.Typeflag) {
		m.size = 0
		return m, nil
	}
	m.packed = h.Size // the pax size record, if any, overrides the field
	var err error
	switch {
	case h.Typeflag == tar.TypeGNUSparse:
		err = p.oldGNUSparse(&m, off)
	case pax["GNU.sparse.major"] == "1" && pax["GNU.sparse.minor"] == "0":
		err = p.pax1Sparse(&m)
	case hasKey(pax, "GNU.sparse.map"):
		err = p.pax0Sparse(&m)
	}
	return m, err
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// mergePAX applies the pax records that archive/tar applies to a header;
// a record whose value does not parse is ignored, as bsdtar ignores it.
func mergePAX(h *tar.Header, pax map[string]string) {
	for k, v := range pax {
		switch k {
		case "path":
			h.Name = v
		case "linkpath":
			h.Linkname = v
		case "uname":
			h.Uname = v
		case "gname":
			h.Gname = v
		case "uid", "gid":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n == int64(int(n)) {
				if k == "uid" {
					h.Uid = int(n)
				} else {
					h.Gid = int(n)
				}
			}
		case "size":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				h.Size = n
			}
		case "mtime", "atime", "ctime":
			if t, ok := parsePAXTime(v); ok {
				switch k {
				case "mtime":
					h.ModTime = t
				case "atime":
					h.AccessTime = t
				default:
					h.ChangeTime = t
				}
			}
		}
	}
}

// parsePAXTime parses a pax time: decimal seconds with an optional
// fraction.
func parsePAXTime(s string) (time.Time, bool) {
	secs, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var nsec int64
	if frac != "" {
		frac = (frac + "000000000")[:9]
		if nsec, err = strconv.ParseInt(frac, 10, 64); err != nil || nsec < 0 {
			return time.Time{}, false
		}
		if strings.HasPrefix(secs, "-") {
			nsec = -nsec
		}
	}
	return time.Unix(n, nsec), true
}

// parsePAX parses pax records ("%d %s=%s\n") as archive/tar does:
// repeated GNU.sparse.offset and GNU.sparse.numbytes records (sparse
// format 0.0) are joined into GNU.sparse.map. A malformed record ends the
// records, keeping those before it, as bsdtar ignores it; a NUL in a
// name ends the name, as it does for bsdtar.
func parsePAX(data []byte) map[string]string {
	recs := map[string]string{}
	var sparse []string
	s := string(data)
	for len(s) > 0 {
		lenStr, _, ok := strings.Cut(s, " ")
		n, err := strconv.Atoi(lenStr)
		if !ok || err != nil || n <= len(lenStr)+1 || n > len(s) {
			break
		}
		rec := s[len(lenStr)+1 : n]
		s = s[n:]
		if !strings.HasSuffix(rec, "\n") {
			break
		}
		k, v, ok := strings.Cut(rec[:len(rec)-1], "=")
		if !ok || k == "" {
			break
		}
		switch k {
		case "path", "linkpath", "uname", "gname":
			v, _, _ = strings.Cut(v, "\x00")
		case "GNU.sparse.offset", "GNU.sparse.numbytes":
			sparse = append(sparse, v)
			continue
		}
		recs[k] = v
	}
	if len(sparse) > 0 {
		recs["GNU.sparse.map"] = strings.Join(sparse, ",")
	}
	return recs
}

// oldGNUSparse reads the sparse map of an old GNU sparse member ("S")
// whose main header, in p.blk, is at off: 4 entries of (offset, length)
// at 386, "isextended" at 482, the real size at 483; each extension block
// after the header has 21 entries and its flag at 504. An entry whose
// offset starts with NUL ends a block's list.
func (p *parser) oldGNUSparse(m *member, off int64) error {
	real, ok := parseNumeric(p.blk[483:495])
	if !ok || real < 0 {
		return p.badSparse(m, "bad real size field")
	}
	m.size, m.hdr.Size = real, real
	var nums []int64
	entries, ext := p.blk[386:482], p.blk[482]
	next := off + blockSize
	for range 1 << 16 {
		for i := 0; i+24 <= len(entries); i += 24 {
			if entries[i] == 0 {
				break
			}
			o, ok1 := parseNumeric(entries[i : i+12])
			n, ok2 := parseNumeric(entries[i+12 : i+24])
			if !ok1 || !ok2 {
				return p.badSparse(m, "bad sparse entry")
			}
			nums = append(nums, o, n)
		}
		if ext == 0 {
			m.dataOff = next
			return p.setFrags(m, nums)
		}
		if err := p.block(next); err != nil {
			if err == io.EOF {
				err = driver.Corruptf("truncated: sparse member %q at offset %d: the archive ends in its extension blocks", m.hdr.Name, m.hdrOff)
			}
			return err
		}
		entries, ext = p.blk[:504], p.blk[504]
		next += blockSize
	}
	return p.badSparse(m, "too many extension blocks")
}

// pax0Sparse reads the sparse map of pax formats 0.0 and 0.1, from the
// records.
func (p *parser) pax0Sparse(m *member) error {
	pax := m.hdr.PAXRecords
	var nums []int64
	if s := pax["GNU.sparse.map"]; s != "" {
		for f := range strings.SplitSeq(s, ",") {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return p.badSparse(m, "bad sparse map entry %q", f)
			}
			nums = append(nums, v)
		}
	}
	if err := p.sparseNames(m, "GNU.sparse.size"); err != nil {
		return err
	}
	return p.setFrags(m, nums)
}

// pax1Sparse reads the sparse map of pax format 1.0: decimal numbers,
// one a line, at the start of the data area, in whole blocks.
func (p *parser) pax1Sparse(m *member) error {
	if err := p.sparseNames(m, "GNU.sparse.realsize"); err != nil {
		return err
	}
	var text []byte
	var nums []int64
	want := int64(-1) // numbers wanted, once the count is read
	for pos := m.dataOff; ; pos += blockSize {
		if pos-m.dataOff >= maxSparseMap {
			return driver.Limitf("sparse member %q at offset %d: sparse map over %d MiB", m.hdr.Name, m.hdrOff, maxSparseMap>>20)
		}
		if pos+blockSize > m.dataOff+m.packed {
			return p.badSparse(m, "the sparse map runs past the data")
		}
		if err := p.block(pos); err != nil {
			if err == io.EOF {
				err = driver.Corruptf("truncated: sparse member %q at offset %d: the archive ends in its sparse map", m.hdr.Name, m.hdrOff)
			}
			return err
		}
		text = append(text, p.blk[:]...)
		for {
			line, rest, ok := bytes.Cut(text, []byte("\n"))
			if !ok {
				break
			}
			text = rest
			v, err := strconv.ParseInt(string(line), 10, 64)
			if err != nil || v < 0 {
				return p.badSparse(m, "bad sparse map entry %q", line)
			}
			if want < 0 {
				if v > maxSparseMap {
					return p.badSparse(m, "sparse map of %d entries", v)
				}
				want = 2 * v
				continue
			}
			nums = append(nums, v)
		}
		if want >= 0 && int64(len(nums)) >= want {
			nums = nums[:want]
			used := pos + blockSize - m.dataOff
			m.dataOff += used
			m.packed -= used
			return p.setFrags(m, nums)
		}
	}
}

// sparseNames applies the name and size records of a pax sparse member.
func (p *parser) sparseNames(m *member, sizeKey string) error {
	pax := m.hdr.PAXRecords
	if name, ok := pax["GNU.sparse.name"]; ok {
		m.hdr.Name = name
	}
	if s, ok := pax[sizeKey]; ok {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return p.badSparse(m, "bad %s %q", sizeKey, s)
		}
		m.hdr.Size = n
	}
	m.size = m.hdr.Size
	return nil
}

// setFrags checks the (offset, length) pairs of a sparse map against the
// member's logical and stored sizes and sets its fragments.
func (p *parser) setFrags(m *member, nums []int64) error {
	if len(nums)%2 != 0 {
		return p.badSparse(m, "odd sparse map")
	}
	frags := make([]fragment, 0, len(nums)/2)
	var packed, end int64
	for i := 0; i+1 < len(nums); i += 2 {
		f := fragment{nums[i], nums[i+1], packed}
		if f.Offset < end || f.Length < 0 || f.Offset > m.size || f.Length > m.size-f.Offset {
			return p.badSparse(m, "fragment [%d, +%d) overlaps, is out of order or past the size %d", f.Offset, f.Length, m.size)
		}
		end = f.Offset + f.Length
		packed += f.Length
		if f.Length > 0 {
			frags = append(frags, f)
		}
	}
	if packed != m.packed {
		return p.badSparse(m, "the sparse map covers %d bytes, the member stores %d", packed, m.packed)
	}
	m.frags = slices.Clip(frags)
	if m.frags == nil {
		m.frags = []fragment{}
	}
	return nil
}

func (p *parser) badSparse(m *member, format string, args ...any) error {
	return driver.Corruptf("sparse member %q at offset %d: %s", m.hdr.Name, m.hdrOff, fmt.Sprintf(format, args...))
}

// cstring returns b up to its first NUL.
func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// lenient parses a numeric field other than the size as bsdtar does:
// base-256 when the high bit of the first byte is set, else the octal
// digits after leading spaces, up to the first other byte. A field with
// no digits is 0.
func lenient(f []byte) int64 {
	if v, ok := parseNumeric(f); ok {
		return v
	}
	f = bytes.TrimLeft(f, " ")
	var v int64
	for _, c := range f {
		if c < '0' || c > '7' || v > (1<<62)>>3 {
			break
		}
		v = v<<3 | int64(c-'0')
	}
	return v
}
