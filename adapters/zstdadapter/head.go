package zstdadapter

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// DecodeHead decodes the start of a zstd file from head, its first bytes,
// for a program that looks at many files by their heads alone (a
// listing): up to n bytes of its output, fewer when head ends first.
//
// The window of the first frame must fit in lim.MaxWindow, as opening the
// file asks (an error matching driver.ErrLimit otherwise; the output stops
// before a later frame that does not), but the head is decoded within a
// window of n bytes and one block (128 KiB), rounded up to a power of two,
// whatever the frames declare: the first n bytes of the output refer no
// further back than n bytes, and the decoder stops at the end of the block
// it is in. The frame headers are rewritten to declare that window, the
// one the decoder allocates: a head costs about that much memory, not the
// frames' windows. A head that holds no zstd frame header is an error
// matching driver.ErrCorrupt; so is bad data within the first n bytes,
// with what decoded before it.
func DecodeHead(head []byte, n int, lim vfs.Limits) ([]byte, error) {
	lim = lim.Effective()
	log := max(bits.Len64(uint64(n)+maxBlock-1), 10) // a window of 1<<log bytes
	frames, err := headFrames(head, log, lim)
	if err != nil {
		return nil, err
	}
	d, err := zstd.NewReader(bytes.NewReader(frames), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(1<<log))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	out := make([]byte, n)
	k, err := io.ReadFull(d, out)
	switch err {
	case nil, io.EOF, io.ErrUnexpectedEOF:
		return out[:k], nil // the head ends
	}
	return out[:k], driver.Corruptf("zstd data: %v", err)
}

// headFrames returns the frames that head holds, whole or cut where head
// ends, skippable frames left out, with every header that declares a
// window over 1<<log rewritten to declare 1<<log (withWindow). It stops
// before a frame whose window is over lim.MaxWindow, an error for the
// first, and at data it cannot walk, which the decoder then refuses.
func headFrames(head []byte, log int, lim vfs.Limits) ([]byte, error) {
	var out []byte
	for off := 0; off < len(head); {
		if off+8 > len(head) {
			break
		}
		m := binary.LittleEndian.Uint32(head[off:])
		if m&skipMagicMask == skipMagic {
			skip := int64(binary.LittleEndian.Uint32(head[off+4:]))
			if skip > int64(len(head)) {
				break
			}
			off += 8 + int(skip)
			continue
		}
		if m != frameMagic {
			if out == nil {
				return nil, driver.Corruptf("no zstd frame at %d", off)
			}
			break
		}
		fh, err := parseHeader(head[off:], int64(off))
		if err == nil {
			err = checkWindow(fh.window, int64(off), lim)
		}
		if err != nil {
			if out == nil {
				return nil, err
			}
			break
		}
		frame := head[off : off+fh.len]
		if fh.window > 1<<log {
			frame = withWindow(frame, fh, log)
		}
		out = append(out, frame...)
		end := frameEnd(head, off+fh.len, head[off+4]&0x04 != 0)
		out = append(out, head[off+fh.len:end]...)
		off = end
	}
	if out == nil {
		return nil, driver.Corruptf("no zstd frame in the head")
	}
	return out, nil
}

// frameEnd returns where the frame whose blocks start at p in head ends
// (its checksum included when it has one), or len(head) when head ends
// first or holds a block that cannot be walked.
func frameEnd(head []byte, p int, checksum bool) int {
	for p+3 <= len(head) {
		v := uint32(head[p]) | uint32(head[p+1])<<8 | uint32(head[p+2])<<16
		last, typ, bsize := v&1 != 0, (v>>1)&3, int(v>>3)
		switch {
		case typ == 1:
			bsize = 1
		case typ == 3 || bsize > maxBlock:
			return len(head)
		}
		p += 3 + bsize
		if last {
			if checksum {
				p += 4
			}
			break
		}
	}
	return min(p, len(head))
}

// withWindow returns a copy of the frame header h, which fh describes,
// that declares a window of 1<<log bytes (at least 1 KiB, and less than
// the frame's). A single-segment frame, whose window is its content size,
// gets a window descriptor; its content size, which is then at least 256
// bytes, is written the same way.
func withWindow(h []byte, fh frameHeader, log int) []byte {
	wd := byte(log-10) << 3
	if !fh.single {
		out := bytes.Clone(h)
		out[5] = wd
		return out
	}
	out := make([]byte, 0, len(h)+1)
	out = append(out, h[:4]...)
	out = append(out, h[4]&^0x20, wd)
	return append(out, h[5:]...)
}
