package fusefs

import (
	"archive/tar"
	"hash/fnv"
	"io/fs"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/pipefs/pipefs/vfs"
)

// ino returns the inode number of name: the FNV-1a hash of the name in 63
// bits, or the next free number after it when another name has it. 0, 1
// (the root's) and the numbers from 2^63, where go-fuse numbers the
// inodes it makes itself, are never given.
func (t *tree) ino(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	n := h.Sum64() &^ (1 << 63)
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		if _, used := t.inos[n]; !used && n > 1 {
			t.inos[n] = struct{}{}
			return n
		}
		n = (n + 1) &^ (1 << 63)
	}
}

// attrOf returns the attributes of a file that info describes.
func (t *tree) attrOf(info fs.FileInfo, ino uint64) fuse.Attr {
	m := info.Mode()
	a := fuse.Attr{
		Ino:     ino,
		Mode:    modeOf(m),
		Nlink:   1,
		Owner:   fuse.Owner{Uid: t.uid, Gid: t.gid},
		Blksize: blockSize,
	}
	if m.IsRegular() || m&fs.ModeSymlink != 0 {
		if size := info.Size(); size > 0 {
			a.Size = uint64(size)
			a.Blocks = (a.Size + 511) / 512
		}
	}
	mtime := info.ModTime()
	if mtime.Before(time.Unix(0, 0)) {
		mtime = time.Unix(0, 0) // unset (zip's zero time), or before 1970
	}
	a.SetTimes(&mtime, &mtime, &mtime)
	if m&fs.ModeDevice != 0 {
		a.Rdev = rdevOf(info)
	}
	return a
}

// blockSize is the st_blksize of every file: the size of a FUSE read.
const blockSize = 128 << 10

// modeOf returns the st_mode of an fs.FileMode.
func modeOf(m fs.FileMode) uint32 {
	mode := uint32(m.Perm())
	switch {
	case m.IsDir():
		mode |= syscall.S_IFDIR
	case m&fs.ModeSymlink != 0:
		mode |= syscall.S_IFLNK
	case m&fs.ModeCharDevice != 0:
		mode |= syscall.S_IFCHR
	case m&fs.ModeDevice != 0:
		mode |= syscall.S_IFBLK
	case m&fs.ModeNamedPipe != 0:
		mode |= syscall.S_IFIFO
	case m&fs.ModeSocket != 0:
		mode |= syscall.S_IFSOCK
	default:
		mode |= syscall.S_IFREG // regular, and irregular files
	}
	if m&fs.ModeSetuid != 0 {
		mode |= syscall.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		mode |= syscall.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		mode |= syscall.S_ISVTX
	}
	return mode
}

// rdevOf returns the device number of a device that a tar header
// describes, encoded as Linux's new_encode_dev does; 0 when there is no
// tar header.
func rdevOf(info fs.FileInfo) uint32 {
	o, ok := info.Sys().(*vfs.Origin)
	if !ok {
		return 0
	}
	h, ok := o.Header.(*tar.Header)
	if !ok {
		return 0
	}
	major, minor := uint32(h.Devmajor), uint32(h.Devminor)
	return minor&0xff | (major&0xfff)<<8 | (minor&^0xff)<<12
}
