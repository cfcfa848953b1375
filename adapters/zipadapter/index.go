package zipadapter

import (
	"archive/zip"
	"io/fs"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/vfs/driver"
)

// The index of an archive is compact: the base names are copied, once,
// into one string in the order of the entries, so that a listing reads
// them from a few cache lines in turn instead of one line of the central
// directory per member; directory names are substrings of the central
// directory's bytes (an implied directory's name is a prefix of a
// member's); an entry is 16 bytes that hold no pointer (the garbage
// collector does not scan the index), and what a listing does not need
// (sizes, modes, times, the *zip.FileHeader) is decoded from the record
// when it is asked for. Entries are grouped by parent directory, each
// group sorted by base name: a directory's listing is a slice, and a
// lookup is a map access for the parent and a binary search in its group.

// An entry is one name of the tree: a member, or a directory that the
// names of members imply.
type entry struct {
	off uint32 // its base name is Archive.names[off:off+len]
	len uint16
	rec int32 // index of the member's record; -1 for an implied directory
	sub int32 // for a directory, its group in Archive.kids; -1 for a file
}

// base returns the base name of e.
func (a *Archive) base(e *entry) string { return a.names[e.off : e.off+uint32(e.len)] }

// newEntry returns the entry of the name a.dir[off:off+len(name)].
func newEntry(name string, off int, rec, sub int32) entry {
	i := strings.LastIndexByte(name, '/') + 1
	return entry{off: uint32(off + i), len: uint16(len(name) - i), rec: rec, sub: sub}
}

// index builds the tree of names from the records, applying the naming
// rules of the package documentation. The result does not depend on the
// order of the records but through the duplicate rule, which is: the last
// record of a name wins, and a directory beats a file.
func (a *Archive) index() {
	type cand struct {
		entry
		parent int32 // the directory the entry is in
	}
	// Room for the members and about as many directories as archives
	// usually have.
	cands := make([]cand, 0, len(a.recs)+len(a.recs)/16+16)
	a.dirs = map[string]int32{".": 0}
	// Until the names are copied below, entries point into the directory.
	a.names = a.dir
	hidden := make([]bool, len(a.recs))

	// intern returns the group of directory name, a.dir[off:off+len(name)],
	// adding it and its missing ancestors, each as an implied entry of its
	// parent. Members come grouped by directory in most archives: the
	// last answer is tried first.
	lastDir, lastID := ".", int32(0)
	var missing []string
	intern := func(name string, off int) int32 {
		if name == lastDir {
			return lastID
		}
		id, ok := a.dirs[name]
		if !ok {
			missing = missing[:0]
			p := name
			for {
				missing = append(missing, p)
				p = fsname.Parent(p)
				if id, ok = a.dirs[p]; ok {
					break
				}
			}
			for _, m := range slices.Backward(missing) {
				child := int32(len(a.dirs))
				a.dirs[m] = child
				cands = append(cands, cand{newEntry(m, off, -1, child), id})
				id = child
			}
		}
		lastDir, lastID = name, id
		return id
	}
	for i := range a.recs {
		raw, creator, attrs := a.rawName(int32(i))
		name, isDir, ok := cleanName(raw, fileMode(&header{name: raw, creator: creator, attrs: attrs}))
		if !ok {
			hidden[i] = true
			if name != "" { // "" and "./" name the root itself
				a.omitted = append(a.omitted, driver.Omission{Name: raw, Offset: a.recs[i].hdr, Reason: "not a valid io/fs name"})
			}
			continue
		}
		// The clean name is the raw name less a prefix.
		off := a.recs[i].pos + dirHeaderLen + len(raw) - len(name)
		if strings.HasSuffix(raw, "/") {
			off--
		}
		parent := int32(0)
		if j := strings.LastIndexByte(name, '/'); j >= 0 {
			parent = intern(name[:j], off)
		}
		sub := int32(-1)
		if isDir {
			sub = intern(name, off)
		}
		cands = append(cands, cand{newEntry(name, off, int32(i), sub), parent})
	}

	// Group by parent (a counting sort), then sort each group by name.
	a.kids = make([]int32, len(a.dirs)+1)
	for _, c := range cands {
		a.kids[c.parent+1]++
	}
	for d := range len(a.dirs) {
		a.kids[d+1] += a.kids[d]
	}
	ents := make([]entry, len(cands))
	fill := slices.Clone(a.kids[:len(a.dirs)])
	for _, c := range cands {
		ents[fill[c.parent]] = c.entry
		fill[c.parent]++
	}
	cands = nil

	// Then keep one entry per name, in place.
	compare := func(x, y entry) int { return strings.Compare(a.base(&x), a.base(&y)) }
	w := int32(0)
	for d := range len(a.dirs) {
		group := ents[a.kids[d]:a.kids[d+1]]
		if !slices.IsSortedFunc(group, compare) {
			slices.SortFunc(group, compare)
		}
		a.kids[d] = w
		for i := 0; i < len(group); {
			j := i + 1
			for j < len(group) && a.base(&group[j]) == a.base(&group[i]) {
				j++
			}
			win := group[i]
			if j-i > 1 {
				win = resolve(group[i:j], hidden)
			}
			ents[w] = win
			w++
			i = j
		}
	}
	a.kids[len(a.dirs)] = w
	a.ents = slices.Clip(ents[:w])
	a.copyNames()
	for i, h := range hidden {
		if h {
			a.hidden = append(a.hidden, int32(i))
		}
	}
}

// copyNames copies the base names of the entries, in their order, into
// one string, and points the entries at it.
func (a *Archive) copyNames() {
	n := 0
	for i := range a.ents {
		n += int(a.ents[i].len)
	}
	var b strings.Builder
	b.Grow(n)
	for i := range a.ents {
		e := &a.ents[i]
		off := b.Len()
		b.WriteString(a.base(e))
		e.off = uint32(off)
	}
	a.names = b.String()
}

// resolve returns the entry that a name with several entries resolves to,
// and marks the records of the others hidden: a directory beats a file,
// and a directory record beats the directory that names imply; among
// records of the same kind, the last one wins.
func resolve(dups []entry, hidden []bool) entry {
	win := dups[0]
	for _, e := range dups[1:] {
		switch {
		case (e.sub >= 0) != (win.sub >= 0):
			if e.sub >= 0 {
				win = e
			}
		case win.rec < 0 || e.rec >= 0 && e.rec > win.rec:
			win = e
		}
	}
	for _, e := range dups {
		if e.rec >= 0 && e.rec != win.rec {
			hidden[e.rec] = true
		}
	}
	return win
}

// header decodes record i, which Open has read already.
func (a *Archive) header(i int32) header {
	h, _ := parseHeader(a.dir, a.recs[i].pos)
	return h
}

// rawName returns the name of record i as the record has it, and the two
// fields its mode is made of, without decoding the rest: readDirectory
// checked the record.
func (a *Archive) rawName(i int32) (name string, creator uint16, attrs uint32) {
	b := a.dir[a.recs[i].pos:]
	return b[dirHeaderLen : dirHeaderLen+int(le16(b, 28))], le16(b, 4), le32(b, 38)
}

// fileMode is archive/zip's FileHeader.Mode of h.
func fileMode(h *header) fs.FileMode {
	fh := zip.FileHeader{Name: h.name, CreatorVersion: h.creator, ExternalAttrs: h.attrs}
	return fh.Mode()
}

// cleanName returns the fs name of a member whose raw name and mode are
// given, whether it is a directory, and whether the name can be exposed:
// as bsdtar does, leading "./" elements are dropped and a trailing "/"
// marks a directory; what is left must be an fs.ValidPath name other than
// "." with no NUL byte and no backslash (which testing/fstest refuses in a
// listing). io/fs names are not OS paths, so a colon is an ordinary
// character.
func cleanName(name string, mode fs.FileMode) (clean string, isDir, ok bool) {
	isDir = mode.IsDir()
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	if strings.HasSuffix(name, "/") {
		name, isDir = name[:len(name)-1], true
	}
	return name, isDir, exposable(name)
}

// exposable reports whether name is an fs.ValidPath name other than "."
// with no NUL byte and no backslash, in one pass over its bytes.
func exposable(name string) bool {
	ascii := true
	elem := 0 // where the current element starts
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '/' {
			if e := name[elem:i]; e == "" || e == "." || e == ".." {
				return false
			}
			elem = i + 1
			continue
		}
		switch c := name[i]; {
		case c == 0 || c == '\\':
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return ascii || utf8.ValidString(name)
}

// lookup finds name, an fs.ValidPath name other than ".".
func (a *Archive) lookup(name string) *entry {
	dir, base := fsname.Split(name)
	d, ok := a.dirs[dir]
	if !ok {
		return nil
	}
	group := a.children(d)
	i, ok := slices.BinarySearchFunc(group, base, func(e entry, base string) int {
		return strings.Compare(a.base(&e), base)
	})
	if !ok {
		return nil
	}
	return &group[i]
}

// children returns the entries of directory d, sorted by name.
func (a *Archive) children(d int32) []entry { return a.ents[a.kids[d]:a.kids[d+1]] }

// A fileInfo describes an entry. It is the fs.FileInfo and fs.DirEntry of
// the tree, and decodes the entry's record as it is asked.
type fileInfo struct {
	a *Archive
	e *entry
}

var (
	_ fs.FileInfo = (*fileInfo)(nil)
	_ fs.DirEntry = (*fileInfo)(nil)
)

func (fi *fileInfo) Name() string { return fi.a.base(fi.e) }
func (fi *fileInfo) IsDir() bool  { return fi.e.sub >= 0 }

// Size is the member's declared size; 0 for a directory.
func (fi *fileInfo) Size() int64 {
	if fi.e.sub >= 0 {
		return 0
	}
	h := fi.a.header(fi.e.rec)
	return int64(min(h.usize, 1<<63-1))
}

// Mode is fs.ModeDir|0555 for a directory; for a file, the permission bits
// of its header (0444 when it has none), and fs.ModeSymlink for a link.
func (fi *fileInfo) Mode() fs.FileMode {
	if fi.e.sub >= 0 {
		return fs.ModeDir | 0o555
	}
	h := fi.a.header(fi.e.rec)
	m := fileMode(&h)
	perm := m.Perm()
	if perm == 0 {
		perm = 0o444
	}
	return perm | m&fs.ModeSymlink
}

func (fi *fileInfo) Type() fs.FileMode { return fi.Mode().Type() }

// ModTime is the member's modification time, as archive/zip reads it; the
// zero time for an implied directory.
func (fi *fileInfo) ModTime() time.Time {
	if fi.e.rec < 0 {
		return time.Time{}
	}
	h := fi.a.header(fi.e.rec)
	return modified(&h)
}

// Sys returns a new *zip.FileHeader of the member, as archive/zip reads
// it; nil for an implied directory.
func (fi *fileInfo) Sys() any {
	if fi.e.rec < 0 {
		return nil
	}
	h := fi.a.header(fi.e.rec)
	return h.fileHeader()
}

func (fi *fileInfo) Info() (fs.FileInfo, error) { return fi, nil }
func (fi *fileInfo) String() string             { return fs.FormatFileInfo(fi) }

// Extra field tags that archive/zip reads times from.
const (
	ntfsExtraID        = 0x000a
	unixExtraID        = 0x000d
	extTimeExtraID     = 0x5455
	infoZipUnixExtraID = 0x5855
)

// modified is archive/zip's FileHeader.Modified of h: the last time an
// extra field gives, in a zone guessed from the MS-DOS time when there is
// one, else the MS-DOS time in UTC.
func modified(h *header) time.Time {
	var mod time.Time
fields:
	for extra := h.extra; len(extra) >= 4; {
		tag, size := le16(extra, 0), int(le16(extra, 2))
		extra = extra[4:]
		if len(extra) < size {
			break
		}
		field := extra[:size]
		extra = extra[size:]
		switch tag {
		case ntfsExtraID:
			if len(field) < 4 {
				continue fields
			}
			for attrs := field[4:]; len(attrs) >= 4; {
				attrTag, attrSize := le16(attrs, 0), int(le16(attrs, 2))
				attrs = attrs[4:]
				if len(attrs) < attrSize {
					continue fields
				}
				attr := attrs[:attrSize]
				attrs = attrs[attrSize:]
				if attrTag != 1 || attrSize != 24 {
					continue
				}
				// The modification time, in 100 ns ticks since 1601.
				const ticksPerSecond = 1e7
				ts := int64(le64(attr, 0))
				secs, nsecs := ts/ticksPerSecond, (1e9/ticksPerSecond)*(ts%ticksPerSecond)
				epoch := time.Date(1601, time.January, 1, 0, 0, 0, 0, time.UTC)
				mod = time.Unix(epoch.Unix()+secs, nsecs)
			}
		case unixExtraID, infoZipUnixExtraID:
			if len(field) < 8 {
				continue fields
			}
			mod = time.Unix(int64(le32(field, 4)), 0)
		case extTimeExtraID:
			if len(field) < 5 || field[0]&1 == 0 {
				continue fields
			}
			mod = time.Unix(int64(le32(field, 1)), 0)
		}
	}
	dos := msDosTime(h.mdate, h.mtime)
	if mod.IsZero() {
		return dos
	}
	if h.mtime == 0 && h.mdate == 0 {
		return mod.UTC()
	}
	// The zone is the difference between the two times, as archive/zip
	// guesses it: rounded to 15 minutes, and UTC when out of range. It is
	// never time.UTC, which says that there was no MS-DOS time.
	off := dos.Sub(mod).Round(15 * time.Minute)
	if off < -12*time.Hour || off > 14*time.Hour {
		off = 0
	}
	return mod.In(time.FixedZone("", int(off/time.Second)))
}

// msDosTime decodes an MS-DOS date and time, as UTC.
func msDosTime(date, t uint16) time.Time {
	return time.Date(int(date>>9+1980), time.Month(date>>5&0xf), int(date&0x1f),
		int(t>>11), int(t>>5&0x3f), int(t&0x1f*2), 0, time.UTC)
}

// fileHeader returns the *zip.FileHeader that archive/zip reads from h.
func (h *header) fileHeader() *zip.FileHeader {
	fh := &zip.FileHeader{
		Name:               h.name,
		Comment:            h.comment,
		CreatorVersion:     h.creator,
		ReaderVersion:      h.reader,
		Flags:              h.flags,
		Method:             h.method,
		Modified:           modified(h),
		CRC32:              h.crc,
		CompressedSize64:   h.csize,
		UncompressedSize64: h.usize,
		Extra:              []byte(h.extra),
		ExternalAttrs:      h.attrs,
	}
	// The deprecated fields hold the record's own values, as archive/zip
	// sets them.
	//lint:ignore SA1019 Sys returns what archive/zip reads
	fh.CompressedSize, fh.UncompressedSize, fh.ModifiedTime, fh.ModifiedDate = h.csize32, h.usize32, h.mtime, h.mdate
	// The encoding, as archive/zip guesses it: not UTF-8 if the name or
	// the comment is not valid UTF-8; UTF-8 if both are plain ASCII (but
	// for characters that other encodings replace); else the flag says.
	validName, needName := detectUTF8(h.name)
	validComment, needComment := detectUTF8(h.comment)
	switch {
	case !validName || !validComment:
		fh.NonUTF8 = true
	case !needName && !needComment:
		fh.NonUTF8 = false
	default:
		fh.NonUTF8 = h.flags&0x800 == 0
	}
	return fh
}

// detectUTF8 reports whether s is valid UTF-8, and whether it needs to be:
// whether it holds a rune outside the ASCII range that CP-437 and the
// other encodings of zip names share (0x20 to 0x7d, less the backslash).
func detectUTF8(s string) (valid, require bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r < 0x20 || r > 0x7d || r == 0x5c {
			if r == utf8.RuneError && size == 1 {
				return false, false
			}
			require = true
		}
	}
	return true, require
}
