package zipadapter

import (
	"context"
	"encoding/binary"
	"io"

	"github.com/ulikunitz/xz/lzma"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// xzDicts checks the XZ member whose compressed data is [off, off+csize)
// of b before it is decoded: the decoder allocates the dictionary each
// LZMA2 filter asks for, so every block's must be at most
// Limits.MaxWindow plus the member's size usize (a larger dictionary than
// the output is what encoders write for small inputs, and is allocated as
// asked). The blocks are found as xz finds them from the end: each
// stream's footer, its index, and the block headers the index locates,
// through stream padding and concatenated streams. The number of blocks
// is bounded by Limits.MaxEntries. A layout that does not parse is an
// error matching driver.ErrCorrupt.
func xzDicts(ctx context.Context, b driver.Blob, off, csize, usize int64, lim vfs.Limits) error {
	read := func(p []byte, at int64) error {
		if at < 0 || at+int64(len(p)) > csize {
			return driver.Corruptf("XZ member: structure points outside its %d bytes", csize)
		}
		_, err := b.ReadAt(ctx, p, off+at)
		if err == io.EOF {
			err = nil
		}
		return err
	}
	blocks := 0
	end := csize
	for end > 0 {
		// Stream padding: zero bytes, in fours.
		var w [4]byte
		if err := read(w[:], end-4); err != nil {
			return err
		}
		if w == [4]byte{} {
			end -= 4
			continue
		}
		var foot [12]byte
		if err := read(foot[:], end-12); err != nil {
			return err
		}
		if foot[10] != 'Y' || foot[11] != 'Z' {
			return driver.Corruptf("XZ member: no stream footer at offset %d", end-12)
		}
		isize := (int64(binary.LittleEndian.Uint32(foot[4:])) + 1) * 4
		istart := end - 12 - isize
		if istart < 12 || isize > int64(lim.MaxEntries)*20+1024 {
			return driver.Corruptf("XZ member: index of %d bytes does not fit", isize)
		}
		idx := make([]byte, isize)
		if err := read(idx, istart); err != nil {
			return err
		}
		if idx[0] != 0 {
			return driver.Corruptf("XZ member: no index at offset %d", istart)
		}
		p := idx[1:]
		count, ok := uvarint(&p)
		if !ok || count > uint64(lim.MaxEntries-blocks) {
			if ok {
				return driver.Limitf("XZ member has more than Limits.MaxEntries (%d) blocks", lim.MaxEntries)
			}
			return driver.Corruptf("XZ member: bad index")
		}
		blocks += int(count)
		sizes := make([]int64, count)
		total := int64(0)
		for i := range sizes {
			unpadded, ok1 := uvarint(&p)
			_, ok2 := uvarint(&p)
			if !ok1 || !ok2 || unpadded > uint64(csize) {
				return driver.Corruptf("XZ member: bad index record")
			}
			sizes[i] = (int64(unpadded) + 3) &^ 3
			total += sizes[i]
		}
		start := istart - total - 12
		if start < 0 || total > csize {
			return driver.Corruptf("XZ member: blocks run before its start")
		}
		at := start + 12
		for _, n := range sizes {
			if err := xzBlockDict(read, at, usize, lim); err != nil {
				return err
			}
			at += n
		}
		end = start
	}
	return nil
}

// xzBlockDict checks the dictionary of the LZMA2 filter of the block header
// at offset at.
func xzBlockDict(read func([]byte, int64) error, at, usize int64, lim vfs.Limits) error {
	var first [1]byte
	if err := read(first[:], at); err != nil {
		return err
	}
	if first[0] == 0 {
		return driver.Corruptf("XZ member: no block header at offset %d", at)
	}
	hdr := make([]byte, (int(first[0])+1)*4)
	if err := read(hdr, at); err != nil {
		return err
	}
	flags := hdr[1]
	p := hdr[2 : len(hdr)-4]
	if flags&0x40 != 0 {
		if _, ok := uvarint(&p); !ok {
			return driver.Corruptf("XZ member: bad block header at offset %d", at)
		}
	}
	if flags&0x80 != 0 {
		if _, ok := uvarint(&p); !ok {
			return driver.Corruptf("XZ member: bad block header at offset %d", at)
		}
	}
	for range int(flags&3) + 1 {
		id, ok1 := uvarint(&p)
		n, ok2 := uvarint(&p)
		if !ok1 || !ok2 || n > uint64(len(p)) {
			return driver.Corruptf("XZ member: bad filter in the block header at offset %d", at)
		}
		props := p[:n]
		p = p[n:]
		if id != 0x21 || n != 1 {
			continue
		}
		dict, err := lzma.DecodeDictCap(props[0])
		if err != nil {
			return driver.Corruptf("XZ member: bad LZMA2 dictionary size in the block header at offset %d", at)
		}
		if dict > lim.MaxWindow+usize {
			return driver.Limitf("XZ member: block at offset %d needs a %d-byte dictionary, more than Limits.MaxWindow (%d) beyond the member's %d bytes",
				at, dict, lim.MaxWindow, usize)
		}
	}
	return nil
}

// uvarint reads the xz multibyte integer at the start of *p (at most 9
// bytes) and advances *p past it.
func uvarint(p *[]byte) (uint64, bool) {
	v, n := binary.Uvarint(*p)
	if n <= 0 || n > 9 {
		return 0, false
	}
	*p = (*p)[n:]
	return v, true
}
