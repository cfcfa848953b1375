package gzipadapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// bgzfMaxBlock is the largest BGZF block, compressed or not (BSIZE and
// ISIZE fit 16 bits plus one).
const bgzfMaxBlock = 1 << 16

// bgzfTableMin is the number of blocks with output beyond which the
// table must average 1 KiB of output per block: it costs 24 bytes per
// block, so at most about 2.5% of the output.
const bgzfTableMin = 1024

// bgzfBlockSize returns the total size of a BGZF block (BSIZE+1) from
// the FEXTRA field of its header, and whether the field has the BC
// subfield.
func bgzfBlockSize(extra []byte) (int64, bool) {
	for len(extra) >= 4 {
		n := int(binary.LittleEndian.Uint16(extra[2:4]))
		if 4+n > len(extra) {
			return 0, false
		}
		if extra[0] == 'B' && extra[1] == 'C' && n == 2 {
			return int64(binary.LittleEndian.Uint16(extra[4:6])) + 1, true
		}
		extra = extra[4+n:]
	}
	return 0, false
}

// bgzf serves random access into a BGZF file (the blocked gzip of
// htslib's bgzip) from its block table, read from the member headers and
// trailers alone: a read decodes only the blocks it covers.
type bgzf struct {
	src      driver.Blob
	size     int64 // input size
	lim      vfs.Limits
	rootSize int64 // compressed bytes at the bottom of the nest
	maxName  int

	mu     sync.Mutex
	walked bool    // the walk ended: ok tells how
	ok     bool    // every member is a BGZF block and the table is served
	coff   []int64 // input offset of each block with output
	cend   []int64 // input offset of its end
	uoff   []int64 // output offset of each block, then the output size

	cmu     sync.Mutex
	last    int // the block in lastOut, -1 for none
	lastOut []byte

	decoded atomic.Int64 // blocks decoded, for tests
}

func newBGZF(src driver.Blob, size int64, lim vfs.Limits, maxName int) *bgzf {
	return &bgzf{src: src, size: size, lim: lim, rootSize: driver.CompressedSize(src), maxName: maxName, last: -1}
}

// table walks the block headers and trailers once and reports whether
// the file is BGZF throughout. When it is not (a member without the BC
// subfield, a block that does not fit the input, an ISIZE over 64 KiB),
// the caller reads it as a general gzip stream, which reports what is
// wrong with it. Errors of the input are returned and not remembered.
func (z *bgzf) table(ctx context.Context) (bool, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.walked {
		return z.ok, nil
	}
	var coff, cend, uoff []int64
	var out int64
	var hdr [18]byte // the fixed header, XLEN and the usual 6-byte FEXTRA
	fail := func() (bool, error) {
		z.walked = true
		return false, nil
	}
	for off := int64(0); off < z.size; {
		if z.size-off < int64(len(hdr))+10 {
			return fail()
		}
		if err := z.read(ctx, hdr[:], off); err != nil {
			return false, err
		}
		if hdr[0] != 0x1f || hdr[1] != 0x8b || hdr[2] != 8 || hdr[3]&flagExtra == 0 {
			return fail()
		}
		extra := hdr[12:]
		if xlen := int(binary.LittleEndian.Uint16(hdr[10:12])); xlen != len(extra) {
			extra = make([]byte, xlen)
			if err := z.read(ctx, extra, off+12); err != nil {
				return false, err
			}
		}
		bsize, ok := bgzfBlockSize(extra)
		if !ok || bsize < int64(12+len(extra)+10) || bsize > z.size-off {
			return fail()
		}
		var isize [4]byte
		if err := z.read(ctx, isize[:], off+bsize-4); err != nil {
			return false, err
		}
		n := int64(binary.LittleEndian.Uint32(isize[:]))
		if n > bgzfMaxBlock {
			return fail()
		}
		if n > 0 {
			// Empty blocks (the last one, flushes) need no entry.
			coff, cend, uoff = append(coff, off), append(cend, off+bsize), append(uoff, out)
			if len(coff) > bgzfTableMin && int64(len(coff)) > out>>10 {
				// Blocks of less than 1 KiB on average: not what bgzip
				// writes. The general reader indexes them in memory
				// bounded by its spacing, not by the number of blocks.
				return fail()
			}
		}
		off += bsize
		out += n
		if out > z.lim.MaxFileSize {
			return false, driver.Limitf("decompressed size exceeds Limits.MaxFileSize (%d bytes)", z.lim.MaxFileSize)
		}
		if out > z.lim.MaxOutputSlack(z.rootSize) {
			return false, driver.Limitf("decompressed size exceeds Limits.MaxRatio (%d) times the %d compressed bytes it comes from", z.lim.MaxRatio, z.rootSize)
		}
	}
	z.coff, z.cend, z.uoff = coff, cend, append(uoff, out)
	z.walked, z.ok = true, true
	return true, nil
}

// read fills p from the input at off. The input ending first is
// corruption (the walk checked the sizes against the input's size); other
// errors are the input's.
func (z *bgzf) read(ctx context.Context, p []byte, off int64) error {
	n, err := z.src.ReadAt(ctx, p, off)
	switch {
	case n == len(p):
		return nil
	case err == io.EOF || err == nil:
		return driver.Corruptf("BGZF input ends at %d, before its size %d", off+int64(n), z.size)
	}
	return err
}

// known returns the output size when the table is walked and ok, else
// -1. z may be nil.
func (z *bgzf) known() int64 {
	if z == nil {
		return -1
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if !z.ok {
		return -1
	}
	return z.Size()
}

// Size returns the output size; the table must be walked and ok.
func (z *bgzf) Size() int64 { return z.uoff[len(z.uoff)-1] }

// ReadAt reads from the blocks that cover [off, off+len(p)); the table
// must be walked and ok.
func (z *bgzf) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	size := z.Size()
	if off >= size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off < size {
		i := sort.Search(len(z.uoff)-1, func(i int) bool { return z.uoff[i+1] > off })
		k, err := z.copyBlock(ctx, i, p[n:], off-z.uoff[i])
		n += k
		off += int64(k)
		if err != nil {
			return n, err
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// copyBlock copies block i's output from offset at into p.
func (z *bgzf) copyBlock(ctx context.Context, i int, p []byte, at int64) (int, error) {
	z.cmu.Lock()
	if z.last == i {
		n := copy(p, z.lastOut[at:])
		z.cmu.Unlock()
		return n, nil
	}
	z.cmu.Unlock()
	out, err := z.decode(ctx, i)
	if err != nil {
		return 0, err
	}
	n := copy(p, out[at:])
	z.cmu.Lock()
	z.last, z.lastOut = i, out
	z.cmu.Unlock()
	return n, nil
}

var bgzfReaders = sync.Pool{New: func() any { return flate.NewReader(nil) }}

// decode reads block i with one read of the input and decodes it,
// checking its header, CRC-32 and ISIZE.
func (z *bgzf) decode(ctx context.Context, i int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	off := z.coff[i]
	in := make([]byte, z.cend[i]-off)
	if err := z.read(ctx, in, off); err != nil {
		return nil, err
	}
	z.decoded.Add(1)
	hl, err := parseHeader(bufio.NewReader(bytes.NewReader(in)), off, z.maxName, nil)
	if err == errNotGzip || (err == nil && int(hl)+8 > len(in)) {
		return nil, driver.Corruptf("BGZF block %d at %d: no gzip header", i, off)
	}
	if err != nil {
		return nil, err
	}
	out := make([]byte, z.uoff[i+1]-z.uoff[i])
	fr := bgzfReaders.Get().(io.ReadCloser)
	defer bgzfReaders.Put(fr)
	data := bytes.NewReader(in[hl : len(in)-8])
	if err := fr.(flate.Resetter).Reset(data, nil); err != nil {
		return nil, driver.Corruptf("BGZF block %d at %d: %v", i, off, err)
	}
	if _, err := io.ReadFull(fr, out); err != nil {
		return nil, driver.Corruptf("BGZF block %d at %d: DEFLATE data decodes to less than its ISIZE %d: %v", i, off, len(out), err)
	}
	var one [1]byte
	if k, err := fr.Read(one[:]); k != 0 || err != io.EOF || data.Len() != 0 {
		return nil, driver.Corruptf("BGZF block %d at %d: DEFLATE data does not end where its ISIZE %d and BSIZE say", i, off, len(out))
	}
	if got, want := crc32.ChecksumIEEE(out), binary.LittleEndian.Uint32(in[len(in)-8:]); got != want {
		return nil, driver.Corruptf("BGZF block %d at %d: CRC-32 of the data is %08x, the trailer says %08x", i, off, got, want)
	}
	return out, nil
}
