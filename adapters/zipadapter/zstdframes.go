package zipadapter

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/blobread"
	"github.com/pipefs/pipefs/vfs"
)

// zstdResumer decodes Zstandard members one frame at a time, so that a
// read resumes at the start of the frame that holds it: a frame's
// compressed length comes from its header and block headers (walked
// with small reads, before the frame is decoded), its output length
// from decoding it. Skippable frames are skipped.
type zstdResumer struct{ lim vfs.Limits }

func (z zstdResumer) from(rd *blobread.Reader, p *point, spacing int64, record func(point)) (io.Reader, error) {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(uint64(min(z.lim.MaxWindow, zstd.MaxWindowSize))),
		zstd.WithDecoderMaxMemory(1<<62))
	if err != nil {
		return nil, err
	}
	f := &zstdFrames{rd: rd, dec: d, spacing: spacing, record: record}
	f.in.rd = rd
	f.br = bufio.NewReaderSize(&f.in, 64<<10)
	if p != nil {
		f.out = p.out
	}
	return f, nil
}

func (z zstdResumer) translate(err error) error {
	var in *inputErr
	switch {
	case errors.As(err, &in):
		return in.err
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return driver.Limitf("Zstandard member: a frame's window is over Limits.MaxWindow (%d bytes): %v", z.lim.MaxWindow, err)
	case errors.Is(err, driver.ErrCorrupt), errors.Is(err, driver.ErrLimit),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case err == io.ErrUnexpectedEOF:
		return driver.Corruptf("Zstandard member: truncated frame")
	}
	return driver.Corruptf("Zstandard member: %v", err)
}

// zstdFrames reads the output of the frames from rd.Pos on.
type zstdFrames struct {
	rd      *blobread.Reader
	dec     *zstd.Decoder
	in      frameInput // the current frame's bytes
	br      *bufio.Reader
	open    bool // a frame is being decoded
	out     int64
	spacing int64
	next    int64 // output offset of the next point wanted
	record  func(point)
}

func (f *zstdFrames) Read(p []byte) (int, error) {
	for {
		if !f.open {
			if f.rd.Pos >= f.rd.End {
				return 0, io.EOF
			}
			n, skip, err := frameLen(f.rd.Ctx, f.rd.Src, f.rd.Pos, f.rd.End)
			if err != nil {
				return 0, err
			}
			if skip {
				f.rd.Pos += n
				continue
			}
			if f.record != nil && f.out >= f.next {
				f.record(point{in: f.rd.Pos, out: f.out})
				f.next = f.out + f.spacing
			}
			f.in.end = f.rd.Pos + n
			f.br.Reset(&f.in)
			if err := f.dec.Reset(f.br); err != nil {
				return 0, err
			}
			f.open = true
		}
		n, err := f.dec.Read(p)
		f.out += int64(n)
		if err == io.EOF {
			f.open = false
			if f.rd.Pos != f.in.end || f.br.Buffered() > 0 {
				return 0, driver.Corruptf("Zstandard member: frame ends before its last block")
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

// frameInput reads the compressed bytes of one frame: rd, up to end. Its
// errors are marked, so that translate tells them from the decoder's.
type frameInput struct {
	rd  *blobread.Reader
	end int64
}

func (f *frameInput) Read(p []byte) (int, error) {
	if f.rd.Pos >= f.end {
		return 0, io.EOF
	}
	n, err := f.rd.Read(p[:min(int64(len(p)), f.end-f.rd.Pos)])
	if err != nil && err != io.EOF {
		err = &inputErr{err}
	}
	return n, err
}

// An inputErr is an error of the input that the decoder hands back.
type inputErr struct{ err error }

func (e *inputErr) Error() string { return e.err.Error() }
func (e *inputErr) Unwrap() error { return e.err }

// Zstandard frame layout (RFC 8878).
const (
	zstdMagic         = 0xFD2FB528
	zstdSkippableMask = 0xFFFFFFF0
	zstdSkippable     = 0x184D2A50
	zstdMaxBlock      = 128 << 10
)

// frameLen returns the compressed length of the frame at pos of src,
// which ends at end, and whether it is a skippable frame: from its header
// and its blocks' headers, without decoding it.
func frameLen(ctx context.Context, src driver.Blob, pos, end int64) (n int64, skippable bool, err error) {
	var b [14]byte
	read := func(p []byte, at int64) error {
		if at+int64(len(p)) > end {
			return driver.Corruptf("Zstandard member: frame at offset %d runs past the end of the member", pos)
		}
		_, err := src.ReadAt(ctx, p, at)
		if err == io.EOF {
			err = nil
		}
		return err
	}
	if err := read(b[:4], pos); err != nil {
		return 0, false, err
	}
	magic := binary.LittleEndian.Uint32(b[:])
	if magic&zstdSkippableMask == zstdSkippable {
		if err := read(b[:8], pos); err != nil {
			return 0, false, err
		}
		n := 8 + int64(binary.LittleEndian.Uint32(b[4:]))
		if pos+n > end {
			return 0, false, driver.Corruptf("Zstandard member: skippable frame at offset %d runs past the end of the member", pos)
		}
		return n, true, nil
	}
	if magic != zstdMagic {
		return 0, false, driver.Corruptf("Zstandard member: no frame at offset %d", pos)
	}
	if err := read(b[4:5], pos+4); err != nil {
		return 0, false, err
	}
	fd := b[4]
	if fd&0x08 != 0 {
		return 0, false, driver.Corruptf("Zstandard member: reserved bit set in the frame at offset %d", pos)
	}
	single := fd&0x20 != 0
	hdr := int64(5) + [4]int64{0, 1, 2, 4}[fd&3]
	if !single {
		hdr++ // window descriptor
	}
	fcs := [4]int64{0, 2, 4, 8}[fd>>6]
	if fd>>6 == 0 && single {
		fcs = 1
	}
	at := pos + hdr + fcs
	for {
		if err := read(b[:3], at); err != nil {
			return 0, false, err
		}
		bh := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		size := int64(bh >> 3)
		switch bh >> 1 & 3 {
		case 1: // RLE: one byte
			size = 1
		case 3:
			return 0, false, driver.Corruptf("Zstandard member: reserved block type at offset %d", at)
		}
		if size > zstdMaxBlock {
			return 0, false, driver.Corruptf("Zstandard member: block of %d bytes at offset %d", size, at)
		}
		at += 3 + size
		if at > end {
			return 0, false, driver.Corruptf("Zstandard member: block at offset %d runs past the end of the member", at-3-size)
		}
		if bh&1 != 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
	}
	if fd&0x04 != 0 {
		at += 4 // content checksum
	}
	if at > end {
		return 0, false, driver.Corruptf("Zstandard member: frame at offset %d runs past the end of the member", pos)
	}
	return at - pos, false, nil
}
