package taradapter

import (
	"archive/tar"
	"cmp"
	"io/fs"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/fsname"
)

// kind is what an index entry is.
type kind uint8

const (
	kindFile    kind = iota // regular file (sparse or not); hard links resolve to it
	kindDir                 // directory, explicit or implied
	kindSymlink             // symbolic link, resolved at lookup
	kindSpecial             // character or block device, FIFO: listed, never read
	kindBroken              // hard link whose target is not an earlier file
)

// An entry is one reachable name.
type entry struct {
	dir, base string // dir is "." at the top level
	info      driver.FileInfo
	kind      kind
	off       int64      // data offset in the archive (kindFile)
	frags     []fragment // sparse map (kindFile), nil if not sparse
	link      string     // symlink target, or the missing hard link target
	err       error      // why the data cannot be read (kindFile), nil if it can
}

// An index is what a scan of one archive yields; it is shared, read only,
// by every Archive over that archive.
type index struct {
	root        driver.FileInfo
	ents        []entry // sorted by (dir, base)
	unreachable []*tar.Header
	omitted     []driver.Omission
	end         *earlyEnd // where the listing ended early, nil if it did not
	globals     []*tar.Header
	members     int // headers scanned, global headers included
	reads       int // ReadAt calls of the scan
}

// buildIndex applies the naming rules of the package documentation to the
// scanned members and returns the sorted index.
func buildIndex(sc *scanned) *index {
	x := &index{
		root:    driver.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555},
		globals: sc.globals,
		members: len(sc.members) + len(sc.globals),
		reads:   sc.reads,
		end:     sc.end,
	}
	byName := make(map[string]int, len(sc.members))
	var ents []entry
	owner := make([]*tar.Header, 0, len(sc.members)) // header of each entry, nil if implied
	hide := func(h *tar.Header) {
		if h != nil {
			x.unreachable = append(x.unreachable, h)
		}
	}
	for i := range sc.members {
		m := &sc.members[i]
		h := m.hdr
		name, dirName := cleanName(h.Name)
		if name == "." {
			if h.Typeflag == tar.TypeDir {
				hide(x.rootHeader())
				x.root = infoOf(".", h, kindDir, 0)
			} else {
				hide(h)
			}
			continue
		}
		if !fs.ValidPath(name) {
			hide(h)
			x.omitted = append(x.omitted, driver.Omission{Name: h.Name, Offset: m.hdrOff,
				Reason: "not a valid io/fs name (an empty, \".\" or \"..\" element, a leading \"/\", or invalid UTF-8)"})
			continue
		}
		e := entry{}
		e.dir, e.base = fsname.Split(name)
		plainDir := h.Typeflag == tar.TypeDir || h.Typeflag == typeGNUDumpDir ||
			(h.Typeflag == tar.TypeReg && m.frags == nil && m.packed == 0)
		if dirName && !plainDir {
			hide(h) // "a/" that is not a directory
			continue
		}
		switch {
		case dirName || h.Typeflag == tar.TypeDir || h.Typeflag == typeGNUDumpDir:
			e.kind = kindDir
		case h.Typeflag == tar.TypeSymlink:
			e.kind, e.link = kindSymlink, h.Linkname
		case h.Typeflag == tar.TypeLink:
			// Extraction order: the link gets the bytes its target has
			// at this point of the archive.
			target, _ := cleanName(h.Linkname)
			j, ok := byName[target]
			if ok && ents[j].kind != kindDir && ents[j].kind != kindBroken {
				t := ents[j]
				e.kind, e.off, e.frags, e.link, e.err = t.kind, t.off, t.frags, t.link, t.err
				e.info = t.info
				e.info.FName, e.info.FSys = e.base, h
			} else {
				e.kind, e.link = kindBroken, h.Linkname
			}
		case h.Typeflag == tar.TypeChar || h.Typeflag == tar.TypeBlock || h.Typeflag == tar.TypeFifo:
			e.kind = kindSpecial
		default:
			e.kind, e.off, e.frags = kindFile, m.dataOff, m.frags
			if m.short {
				e.err = pastEnd(m, -1)
			}
		}
		if e.info.FSys == nil {
			size := m.size
			if e.kind == kindSymlink {
				size = int64(len(e.link))
			}
			e.info = infoOf(e.base, h, e.kind, size)
		}
		isDir := e.kind == kindDir
		if j, dup := byName[name]; dup {
			if ents[j].kind == kindDir && !isDir {
				hide(h) // a directory beats a file
				continue
			}
			hide(owner[j]) // the later entry wins
			ents[j], owner[j] = e, h
		} else {
			byName[name] = len(ents)
			ents = append(ents, e)
			owner = append(owner, h)
		}
		// Every ancestor is a directory. Once one exists, all of its
		// ancestors do too.
		for p := e.dir; p != "."; p = fsname.Parent(p) {
			if j, ok := byName[p]; ok {
				if ents[j].kind != kindDir {
					hide(owner[j])
					ents[j], owner[j] = implicitDir(p), nil
				}
				break
			}
			byName[p] = len(ents)
			ents = append(ents, implicitDir(p))
			owner = append(owner, nil)
		}
	}
	slices.SortFunc(ents, func(a, b entry) int {
		return cmp.Or(strings.Compare(a.dir, b.dir), strings.Compare(a.base, b.base))
	})
	x.ents = ents
	return x
}

// rootHeader returns the header of an explicit root entry, if any.
func (x *index) rootHeader() *tar.Header {
	h, _ := x.root.FSys.(*tar.Header)
	return h
}

func implicitDir(name string) entry {
	e := entry{kind: kindDir}
	e.dir, e.base = fsname.Split(name)
	e.info = driver.FileInfo{FName: e.base, FMode: fs.ModeDir | 0o555}
	return e
}

// infoOf describes an entry of kind k from its header.
func infoOf(base string, h *tar.Header, k kind, size int64) driver.FileInfo {
	mode := fs.FileMode(h.Mode) & fs.ModePerm
	if h.Mode&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if h.Mode&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if h.Mode&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	switch k {
	case kindDir:
		mode |= fs.ModeDir
	case kindSymlink:
		mode |= fs.ModeSymlink
	case kindSpecial:
		switch h.Typeflag {
		case tar.TypeChar:
			mode |= fs.ModeDevice | fs.ModeCharDevice
		case tar.TypeBlock:
			mode |= fs.ModeDevice
		case tar.TypeFifo:
			mode |= fs.ModeNamedPipe
		}
	}
	if k != kindFile {
		size = 0
		if k == kindSymlink {
			size = int64(len(h.Linkname))
		}
	}
	return driver.FileInfo{FName: base, FSize: size, FMode: mode, FModTime: h.ModTime, FSys: h}
}

// cleanName returns the fs name of a header name and whether it ended in
// "/". One trailing "/" and any number of leading "./" are removed, as
// archives made with "tar -C dir ." name their members "./a/b"; "." is
// the root. Nothing else is cleaned: the result may be unsafe.
func cleanName(raw string) (name string, dir bool) {
	name = raw
	if len(name) > 1 && strings.HasSuffix(name, "/") {
		name, dir = name[:len(name)-1], true
	}
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	if name == "" && raw != "" && dir {
		name = "."
	}
	return name, dir
}

// lookup finds name, an fs.ValidPath name other than ".", in the index.
func (x *index) lookup(name string) *entry {
	dir, base := fsname.Split(name)
	i, ok := slices.BinarySearchFunc(x.ents, name, func(e entry, _ string) int {
		return cmp.Or(strings.Compare(e.dir, dir), strings.Compare(e.base, base))
	})
	if !ok {
		return nil
	}
	return &x.ents[i]
}

// children returns the entries of directory dir, sorted by name.
func (x *index) children(dir string) []entry {
	lo, _ := slices.BinarySearchFunc(x.ents, dir, func(e entry, dir string) int {
		return strings.Compare(e.dir, dir)
	})
	hi, _ := slices.BinarySearchFunc(x.ents[lo:], dir, func(e entry, dir string) int {
		return cmp.Or(strings.Compare(e.dir, dir), -1)
	})
	return x.ents[lo : lo+hi]
}

// typeGNUDumpDir is the type of a GNU incremental directory entry, whose
// data lists the directory's contents for restores: a directory.
const typeGNUDumpDir = 'D'
