package hdf5adapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// signature is the HDF5 format signature.
const signature = "\x89HDF\r\n\x1a\n"

// maxRank is libhdf5's limit on the number of dimensions.
const maxRank = 32

// maxTypeDepth bounds the nesting of datatypes (compound in array in ...).
const maxTypeDepth = 16

// maxSoftHops bounds the soft links followed to resolve one path.
const maxSoftHops = 40

// A file is an open HDF5 file: its superblock and what was parsed of its
// metadata.
type file struct {
	blob driver.Blob
	size int64
	base uint64 // where the signature is: addresses are relative to it
	end  uint64 // addresses (relative) at or past end are outside the file
	o, l int    // sizes of offsets and lengths
	root uint64 // root group object header

	superblock int // superblock version
	lim        vfs.Limits
	cache      *vfs.Cache
	key        string // env.Key, "" when nothing is cached across opens
	url        string // env.URL: where the sources of virtual datasets beside the file are
	opts       *vfs.Options

	mu     sync.Mutex
	objs   map[uint64]*object // parsed object headers
	grps   map[uint64]*links  // a group's links, sorted by name
	dsts   map[uint64]*dsInfo // a dataset's description
	blocks map[uint64][]byte  // fractal heap direct blocks
	gcols  map[uint64]globalCollection
	meta   int64 // bytes of metadata held in the maps above

	ext     uint64       // superblock extension object header, undef when none
	smtb    *sharedTable // shared message table, read when a message needs it
	smtbErr error        // why it does not read
}

// findSignature returns the offset of the HDF5 signature: 0, 512, 1024,
// 2048, ... below the size of the blob.
func findSignature(ctx context.Context, b driver.Blob, size int64) (int64, error) {
	var sig [8]byte
	for off := int64(0); off+8 <= size; off = max(512, off*2) {
		n, err := b.ReadAt(ctx, sig[:], off)
		if n < len(sig) {
			if err == nil || err == io.EOF {
				err = driver.Corruptf("truncated at %d", off+int64(n))
			}
			return 0, err
		}
		if string(sig[:]) == signature {
			return off, nil
		}
	}
	return 0, driver.Corruptf("no HDF5 signature at 0, 512, 1024, ... in %d bytes", size)
}

// openFile reads the superblock of the HDF5 file in b.
func openFile(ctx context.Context, b driver.Blob, lim vfs.Limits, cache *vfs.Cache, key string) (*file, error) {
	size := b.Stat().Size()
	pos, err := findSignature(ctx, b, size)
	if err != nil {
		return nil, err
	}
	f := &file{blob: b, size: size, base: uint64(pos), lim: lim, cache: cache, key: key,
		objs: map[uint64]*object{}, grps: map[uint64]*links{}, dsts: map[uint64]*dsInfo{}, blocks: map[uint64][]byte{}, gcols: map[uint64]globalCollection{}}
	f.end = uint64(size) - f.base
	f.ext = undef
	hdr := make([]byte, min(128, size-pos))
	if _, err := readFull(ctx, b, hdr, pos); err != nil {
		return nil, err
	}
	c := &cursor{b: hdr, what: "superblock"}
	c.skip(8)
	f.superblock = int(c.u8())
	var eof uint64
	switch f.superblock {
	case 0, 1:
		c.skip(4) // free-space, root entry, reserved, shared-header versions
		f.o, f.l = int(c.u8()), int(c.u8())
		if err := f.checkSizes(); err != nil {
			return nil, err
		}
		c.o, c.l = f.o, f.l
		c.skip(1 + 4 + 4) // reserved, group K, flags
		if f.superblock == 1 {
			c.skip(4)
		}
		c.addr() // base address: the signature's position wins
		c.addr() // free space
		eof = c.addr()
		if drv := c.addr(); drv != undef && c.err == nil {
			return nil, fmt.Errorf("%w: HDF5 files split over several files (family, multi or split drivers)", errors.ErrUnsupported)
		}
		c.addr() // root entry: link name offset
		f.root = c.addr()
	case 2, 3:
		f.o, f.l = int(c.u8()), int(c.u8())
		if err := f.checkSizes(); err != nil {
			return nil, err
		}
		c.o, c.l = f.o, f.l
		c.skip(1) // flags
		c.addr()  // base
		f.ext = c.addr()
		eof = c.addr()
		f.root = c.addr()
		if c.err == nil {
			if err := checkSum(hdr, c.p, "superblock"); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%w: HDF5 superblock version %d", errors.ErrUnsupported, f.superblock)
	}
	if c.err != nil {
		return nil, c.err
	}
	// The end-of-file address counts from the base, but libhdf5 writes
	// the file's size there when it has a user block: accept both.
	if eof != undef && eof > f.end && eof > uint64(size) {
		return nil, driver.Corruptf("truncated: the superblock says %d bytes, the file holds %d", eof, size)
	}
	if eof != undef && eof < f.end {
		f.end = eof
	}
	if f.root == undef || f.root >= f.end {
		return nil, driver.Corruptf("root group address %#x outside the file", f.root)
	}
	return f, nil
}

func (f *file) checkSizes() error {
	for _, v := range []int{f.o, f.l} {
		if v != 2 && v != 4 && v != 8 {
			return fmt.Errorf("%w: HDF5 superblock with %d-byte offsets and %d-byte lengths", errors.ErrUnsupported, f.o, f.l)
		}
	}
	return nil
}

// readFull reads len(p) bytes at off, failing with a corrupt error when
// the blob ends before.
func readFull(ctx context.Context, b driver.Blob, p []byte, off int64) (int, error) {
	n, err := b.ReadAt(ctx, p, off)
	if n == len(p) {
		return n, nil
	}
	if err == nil || err == io.EOF {
		err = driver.Corruptf("truncated: %d bytes wanted at %d, the file ends at %d", len(p), off, off+int64(n))
	}
	return n, err
}

// check validates the range [addr, addr+n) of the file.
func (f *file) check(addr, n uint64, what string) error {
	if addr == undef {
		return driver.Corruptf("%s: undefined address", what)
	}
	if addr > f.end || n > f.end-addr {
		return driver.Corruptf("%s: %d bytes at %#x, past the end of the file (%#x)", what, n, addr, f.end)
	}
	return nil
}

// read reads n bytes of metadata at the relative address addr.
func (f *file) read(ctx context.Context, addr, n uint64, what string) ([]byte, error) {
	if err := f.check(addr, n, what); err != nil {
		return nil, err
	}
	if n > uint64(f.lim.MaxDocument) {
		return nil, driver.Limitf("%s: %d bytes of metadata, more than MaxDocument (%d)", what, n, f.lim.MaxDocument)
	}
	p := make([]byte, n)
	if _, err := readFull(ctx, f.blob, p, int64(f.base+addr)); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return p, nil
}

// readUpTo reads at most n bytes at addr (fewer at the end of the file).
func (f *file) readUpTo(ctx context.Context, addr, n uint64, what string) ([]byte, error) {
	if addr != undef && addr < f.end {
		n = min(n, f.end-addr)
	}
	return f.read(ctx, addr, n, what)
}

// cursor returns a cursor over b with the file's sizes.
func (f *file) cursor(b []byte, what string) *cursor {
	return &cursor{b: b, what: what, o: f.o, l: f.l}
}

// hasSig reports whether b starts with the 4-byte signature sig.
func hasSig(b []byte, sig string) bool { return len(b) >= 4 && bytes.Equal(b[:4], []byte(sig)) }

// readBlock reads the size bytes of the structure what at addr, which
// start with the signature sig and end in the checksum of the bytes
// before it.
func (f *file) readBlock(ctx context.Context, addr, size uint64, sig, what string) ([]byte, error) {
	b, err := f.read(ctx, addr, size, what)
	if err != nil {
		return nil, err
	}
	if !hasSig(b, sig) {
		return nil, driver.Corruptf("%s at %#x has no %s signature", what, addr, sig)
	}
	if err := checkSum(b, len(b)-4, what); err != nil {
		return nil, err
	}
	return b, nil
}

// remember charges n bytes of parsed metadata and empties the maps when
// they hold more than MaxDocument, so that walking a huge file does not
// keep all of its metadata. f.mu is held.
func (f *file) remember(n int64) {
	f.meta += n
	if f.meta > f.lim.MaxDocument || len(f.objs)+len(f.grps)+len(f.dsts)+len(f.gcols) > f.lim.MaxEntries {
		clear(f.objs)
		clear(f.grps)
		clear(f.dsts)
		clear(f.blocks)
		clear(f.gcols)
		f.meta = n
	}
}
