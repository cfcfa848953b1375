package zstdadapter

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// maxBlock is the largest block size RFC 8878 allows.
const maxBlock = 128 << 10

// A frameHeader is what the header of a frame says.
type frameHeader struct {
	single bool   // Single_Segment_flag: no window descriptor
	window uint64 // the window, the content size of a single segment
	size   int64  // the content size, -1 when not given
	len    int    // the header's length, magic number included
}

// parseHeader parses the header of the frame at off, whose first bytes h
// holds (its magic number first).
func parseHeader(h []byte, off int64) (frameHeader, error) {
	if len(h) < 6 {
		return frameHeader{}, driver.Corruptf("zstd frame header at %d is truncated", off)
	}
	fhd := h[4]
	if fhd&0x08 != 0 {
		return frameHeader{}, driver.Corruptf("zstd frame at %d: reserved header bit set", off)
	}
	fh := frameHeader{single: fhd&0x20 != 0, size: -1}
	pos := 5
	if !fh.single {
		wd := h[pos]
		pos++
		exp := uint(wd>>3) + 10
		base := uint64(1) << exp
		fh.window = base + base/8*uint64(wd&7)
	}
	pos += []int{0, 1, 2, 4}[fhd&3]
	fcsLen := []int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && fh.single {
		fcsLen = 1
	}
	if pos+fcsLen > len(h) {
		return frameHeader{}, driver.Corruptf("zstd frame header at %d is truncated", off)
	}
	switch fcsLen {
	case 1:
		fh.size = int64(h[pos])
	case 2:
		fh.size = int64(binary.LittleEndian.Uint16(h[pos:])) + 256
	case 4:
		fh.size = int64(binary.LittleEndian.Uint32(h[pos:]))
	case 8:
		v := binary.LittleEndian.Uint64(h[pos:])
		if v > 1<<62 {
			return frameHeader{}, driver.Limitf("zstd frame at %d declares %d bytes", off, v)
		}
		fh.size = int64(v)
	}
	fh.len = pos + fcsLen
	if fh.single {
		fh.window = uint64(fh.size)
	}
	return fh, nil
}

// checkWindow checks the window that the frame at off asks for against
// Limits.MaxWindow: it is what a decoder allocates.
func checkWindow(window uint64, off int64, lim vfs.Limits) error {
	if window > uint64(lim.MaxWindow) {
		return driver.Limitf("zstd frame at %d needs a %d-byte window, more than Limits.MaxWindow (%d)", off, window, lim.MaxWindow)
	}
	return nil
}

// A frame is one zstd frame of the input.
type frame struct {
	in, end int64 // compressed bytes [in, end)
	out     int64 // output offset
	size    int64 // output size, -1 until known
}

type opener struct {
	ctx  context.Context
	src  driver.Blob
	size int64
	lim  vfs.Limits
	opts *vfs.Options
}

func (o *opener) read(p []byte, off int64) error {
	n, err := o.src.ReadAt(o.ctx, p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = driver.Corruptf("zstd data truncated at %d", off+int64(n))
	}
	return err
}

func (o *opener) u32(off int64) (uint32, error) {
	var b [4]byte
	err := o.read(b[:], off)
	return binary.LittleEndian.Uint32(b[:]), err
}

// walk finds the frames by their headers.
func (o *opener) walk() ([]frame, error) {
	var frames []frame
	for off := int64(0); off < o.size; {
		m, err := o.u32(off)
		if err != nil {
			return nil, err
		}
		if m&skipMagicMask == skipMagic {
			n, err := o.u32(off + 4)
			if err != nil {
				return nil, err
			}
			if off+8+int64(n) > o.size {
				return nil, driver.Corruptf("zstd skippable frame at %d is truncated", off)
			}
			off += 8 + int64(n)
			continue
		}
		if m != frameMagic {
			if len(frames) == 0 {
				return nil, vfs.NotFormat(o.ctx, o.opts, o.src, "zstd", "a zstd stream", fmt.Sprintf("no frame magic at offset %d", off))
			}
			return nil, driver.Corruptf("trailing garbage at %d after zstd frame %d", off, len(frames)-1)
		}
		if len(frames) >= o.lim.MaxEntries {
			return nil, driver.Limitf("zstd file has more than Limits.MaxEntries (%d) frames", o.lim.MaxEntries)
		}
		f, err := o.frame(off)
		if err != nil {
			return nil, err
		}
		frames = append(frames, f)
		off = f.end
	}
	if len(frames) == 0 {
		return nil, driver.Corruptf("zstd file has no frame")
	}
	return frames, nil
}

// frame parses the frame header at off and walks its blocks.
func (o *opener) frame(off int64) (frame, error) {
	var h [14]byte
	hn := min(int64(len(h)), o.size-off)
	if err := o.read(h[:hn], off); err != nil {
		return frame{}, err
	}
	fh, err := parseHeader(h[:hn], off)
	if err != nil {
		return frame{}, err
	}
	if err := checkWindow(fh.window, off, o.lim); err != nil {
		return frame{}, err
	}
	size, pos, fhd := fh.size, fh.len, h[4]
	p := off + int64(pos)
	for {
		var bh [3]byte
		if err := o.read(bh[:], p); err != nil {
			return frame{}, err
		}
		v := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last, typ, bsize := v&1 != 0, (v>>1)&3, int64(v>>3)
		switch typ {
		case 1:
			bsize = 1
		case 3:
			return frame{}, driver.Corruptf("zstd frame at %d: reserved block type at %d", off, p)
		}
		if bsize > maxBlock {
			return frame{}, driver.Corruptf("zstd frame at %d: block of %d bytes at %d", off, bsize, p)
		}
		p += 3 + bsize
		if p > o.size {
			return frame{}, driver.Corruptf("zstd frame at %d is truncated", off)
		}
		if last {
			break
		}
	}
	if fhd&0x04 != 0 {
		p += 4
	}
	if p > o.size {
		return frame{}, driver.Corruptf("zstd frame at %d is truncated", off)
	}
	return frame{in: off, end: p, size: size}, nil
}
