// Package xzadapter registers the vendor adapter "pipefs.xz:" and the xz
// format signature (FD 37 7A 58 5A 00) with vfs. Import it for its side
// effects:
//
//	import _ "github.com/pipefs/pipefs/adapters/xzadapter"
//
// "file:/d/x.xz|pipefs.xz:" is the decompressed bytes of x.xz, decoded by
// github.com/ulikunitz/xz. Concatenated streams and stream padding are
// read as xz -d reads them.
//
// # Stream only
//
// Random access is not served: a read at or after where the previous one
// stopped continues the decoder, and a read before it starts over from
// the beginning (see internal/streamblob). The blob is a [driver.Streamer],
// so io.Copy of the file decodes it once.
//
// Opening reads the stream footers and indexes at the end of the file and
// the header of every block, and decodes nothing. The index gives the
// size, so Stat().Size() costs nothing; the output must then add up to it
// (an error matching driver.ErrCorrupt otherwise).
//
// # Errors and limits
//
// Every LZMA2 dictionary a block header asks for must fit in
// Limits.MaxWindow, or opening fails with an error matching driver.ErrLimit:
// the dictionary is what a decoder allocates. As it allocates one for each
// block, the dictionaries of all blocks together must fit in
// Limits.MaxWindow plus the output size, or opening fails the same way
// (many tiny blocks would otherwise make a small file allocate without
// bound). More blocks than
// Limits.MaxEntries, an index size over Limits.MaxFileSize or over
// Limits.MaxRatio times the compressed size (past Limits.RatioFloor), and output past those bounds
// while decoding are errors matching driver.ErrLimit. Bad magic, a bad
// footer or index, check (CRC-32, CRC-64, SHA-256) mismatches, filters
// other than LZMA2, and truncation are errors matching driver.ErrCorrupt.
//
// # Verification
//
// The block checks (CRC-32, CRC-64 or SHA-256) and the index are checked
// by the decoder, and a ReadAt that stops short of the end returns its
// bytes only once a pass has decoded the whole stream and every check
// passed: the first such read of an open file runs that pass, with a
// decoder of its own, and a stream that fails gives every read no bytes
// and the error. A stream (io.Copy) delivers output as it decodes and
// fails at the bad block.
//
// # Concurrency
//
// The blob is safe for concurrent use; its ReadAt calls are serialised.
package xzadapter

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/internal/streamblob"
	"github.com/pipefs/pipefs/vfs"
)

// Scheme is the adapter scheme this package registers.
const Scheme = "pipefs.xz"

const magic = "\xfd7zXZ\x00"

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: Scheme, OpenFile: open, Extensions: []string{".xz"}, Stream: true, DecodeHead: DecodeHead})
	vfs.RegisterFormat(&vfs.Format{Name: "xz", Adapter: Scheme + ":", Input: vfs.KindFile, Magic: magic})
}

// Info is what Stat().Sys() returns.
type Info struct {
	Streams int   // number of xz streams
	Blocks  int   // number of blocks
	DictCap int64 // the largest LZMA2 dictionary a block asks for
}

func open(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	var head [len(magic)]byte
	if n, err := src.ReadAt(ctx, head[:], 0); n < len(head) || string(head[:]) != magic {
		if err != nil && err != io.EOF {
			return driver.Location{}, err
		}
		return driver.Location{}, vfs.NotFormat(ctx, env.Options, src, Scheme, "an xz stream", "no xz magic at offset 0")
	}
	info := src.Stat()
	lim := env.Limits
	sc := &scanner{ctx: ctx, src: src, lim: lim}
	size, err := sc.scan(info.Size())
	if err != nil {
		return driver.Location{}, err
	}
	if size > lim.MaxFileSize {
		return driver.Location{}, driver.Limitf("xz index declares %d bytes, more than Limits.MaxFileSize (%d)", size, lim.MaxFileSize)
	}
	if root := driver.CompressedSize(src); size > lim.MaxOutputSlack(root) {
		return driver.Location{}, lim.RatioError(fmt.Sprintf("xz stream, whose index declares %d bytes,", size), root)
	}
	b := streamblob.New(ctx, src, streamblob.Config{
		Format: "xz",
		NewReader: func(r io.Reader) (io.Reader, error) {
			// The smallest initial dictionary: the decoder grows it to
			// what each block asks, which scan checked.
			return xz.ReaderConfig{DictCap: lzma.MinDictCap}.NewReader(r)
		},
		Size:    size,
		Name:    fsname.Decompressed("xz", info.Name()),
		Mode:    info.Mode(),
		ModTime: info.ModTime(),
		Sys:     &Info{Streams: sc.streams, Blocks: sc.blocks, DictCap: sc.dict},
	}, lim)
	return driver.Location{Blob: b}, nil
}

// scanner walks the streams of a file from its end.
type scanner struct {
	ctx     context.Context
	src     driver.Blob
	lim     vfs.Limits
	streams int
	blocks  int
	dict    int64
	// dicts is the sum of the dictionaries of all blocks: the decoder
	// allocates one for each block, so a file of many tiny blocks that
	// each ask for a large one costs far more than its size.
	dicts int64
}

func (s *scanner) read(p []byte, off int64) error {
	if off < 0 {
		return driver.Corruptf("xz structure points before the start of the file")
	}
	n, err := s.src.ReadAt(s.ctx, p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = driver.Corruptf("xz file truncated at %d", off+int64(n))
	}
	return err
}

// scan returns the total declared output size.
func (s *scanner) scan(size int64) (int64, error) {
	var total int64
	pos := size
	for pos > 0 {
		// Stream padding: zeros in units of 4 bytes.
		var w [4]byte
		if err := s.read(w[:], pos-4); err != nil {
			return 0, err
		}
		if w == [4]byte{} {
			pos -= 4
			if s.streams == 0 && pos == 0 {
				break
			}
			continue
		}
		start, out, err := s.stream(pos)
		if err != nil {
			return 0, err
		}
		total += out
		if total > s.lim.MaxFileSize || total < 0 {
			return 0, driver.Limitf("xz index declares more than Limits.MaxFileSize (%d bytes)", s.lim.MaxFileSize)
		}
		pos = start
	}
	if s.streams == 0 {
		return 0, driver.Corruptf("not an xz file: no stream")
	}
	// xz gives a block no larger a dictionary than its output, but for
	// the last of a stream; so the dictionaries of a file xz made add up
	// to at most the output and one window (more for many small files
	// concatenated: raise MaxWindow for those).
	if s.dicts > s.lim.MaxWindow+total {
		return 0, driver.Limitf("xz blocks ask for %d bytes of dictionaries in all for %d bytes of output, more than Limits.MaxWindow (%d) beyond it", s.dicts, total, s.lim.MaxWindow)
	}
	return total, nil
}

// stream checks the stream that ends at end and returns its start and
// declared output size.
func (s *scanner) stream(end int64) (int64, int64, error) {
	le := binary.LittleEndian
	var foot [12]byte
	if end < 24 {
		return 0, 0, driver.Corruptf("xz stream ending at %d is too short", end)
	}
	if err := s.read(foot[:], end-12); err != nil {
		return 0, 0, err
	}
	if string(foot[10:]) != "YZ" {
		return 0, 0, driver.Corruptf("no xz stream footer at %d", end-12)
	}
	if crc32.ChecksumIEEE(foot[4:10]) != le.Uint32(foot[:4]) {
		return 0, 0, driver.Corruptf("xz stream footer at %d: bad CRC-32", end-12)
	}
	isize := (int64(le.Uint32(foot[4:8])) + 1) * 4
	istart := end - 12 - isize
	if istart < 12 {
		return 0, 0, driver.Corruptf("xz index of %d bytes does not fit before %d", isize, end-12)
	}
	// The index: 0x00, count, (unpadded, uncompressed) records, padding,
	// CRC-32. Its size is bounded by the file.
	idx := make([]byte, isize)
	if err := s.read(idx, istart); err != nil {
		return 0, 0, err
	}
	if idx[0] != 0 || crc32.ChecksumIEEE(idx[:isize-4]) != le.Uint32(idx[isize-4:]) {
		return 0, 0, driver.Corruptf("xz index at %d is damaged", istart)
	}
	r := bytes.NewReader(idx[1 : isize-4])
	count, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, 0, driver.Corruptf("xz index at %d is damaged", istart)
	}
	if count > uint64(s.lim.MaxEntries-s.blocks) {
		return 0, 0, driver.Limitf("xz file has more than Limits.MaxEntries (%d) blocks", s.lim.MaxEntries)
	}
	type rec struct{ unpadded, out int64 }
	recs := make([]rec, 0, min(count, uint64(isize/2)))
	var blocks, out int64
	for range count {
		u, err1 := binary.ReadUvarint(r)
		o, err2 := binary.ReadUvarint(r)
		if err1 != nil || err2 != nil || u < 5 || u > 1<<62 || o > 1<<62 {
			return 0, 0, driver.Corruptf("xz index at %d is damaged", istart)
		}
		recs = append(recs, rec{int64(u), int64(o)})
		blocks += (int64(u) + 3) &^ 3
		out += int64(o)
		if blocks > istart || out > 1<<62 {
			return 0, 0, driver.Corruptf("xz index at %d declares more than the file holds", istart)
		}
	}
	for r.Len() > 0 {
		if b, _ := r.ReadByte(); b != 0 {
			return 0, 0, driver.Corruptf("xz index at %d is damaged", istart)
		}
	}
	start := istart - blocks - 12
	if start < 0 {
		return 0, 0, driver.Corruptf("xz blocks do not fit before the index at %d", istart)
	}
	var head [12]byte
	if err := s.read(head[:], start); err != nil {
		return 0, 0, err
	}
	if string(head[:6]) != magic || crc32.ChecksumIEEE(head[6:8]) != le.Uint32(head[8:]) || !bytes.Equal(head[6:8], foot[8:10]) {
		return 0, 0, driver.Corruptf("no xz stream header matching the footer at %d (expected at %d)", end-12, start)
	}
	check := checkSize(head[7] & 0x0f)
	if head[6] != 0 || head[7]&0xf0 != 0 {
		return 0, 0, driver.Corruptf("xz stream header at %d: reserved flags set", start)
	}
	pos := start + 12
	for i, rc := range recs {
		dataEnd, err := s.block(pos)
		if err != nil {
			return 0, 0, err
		}
		// The index must agree with the block as its LZMA2 chunks lay
		// it out, or the decoder would meet block headers scan has not
		// checked.
		if unpadded := dataEnd - pos + check; unpadded != rc.unpadded {
			return 0, 0, driver.Corruptf("xz block %d at %d is %d bytes, the index says %d", i, pos, unpadded, rc.unpadded)
		}
		pos += (rc.unpadded + 3) &^ 3
	}
	s.streams++
	s.blocks += len(recs)
	return start, out, nil
}

// checkSize is the size of a block's check of the given type.
func checkSize(t byte) int64 {
	if t == 0 {
		return 0
	}
	return 4 << ((t - 1) / 3)
}

// block checks the filters of the block header at off, then walks the
// LZMA2 chunk headers of its data, and returns where the data ends.
func (s *scanner) block(off int64) (int64, error) {
	if err := s.header(off); err != nil {
		return 0, err
	}
	var hb [1]byte
	if err := s.read(hb[:], off); err != nil {
		return 0, err
	}
	pos := off + (int64(hb[0])+1)*4
	for {
		var c [6]byte
		if err := s.read(c[:1], pos); err != nil {
			return 0, err
		}
		switch ctl := c[0]; {
		case ctl == 0:
			return pos + 1, nil
		case ctl == 1 || ctl == 2:
			if err := s.read(c[:3], pos); err != nil {
				return 0, err
			}
			pos += 3 + int64(binary.BigEndian.Uint16(c[1:3])) + 1
		case ctl >= 0x80:
			if err := s.read(c[:5], pos); err != nil {
				return 0, err
			}
			n := int64(5)
			if (ctl>>5)&3 >= 2 {
				n = 6 // new properties
			}
			pos += n + int64(binary.BigEndian.Uint16(c[3:5])) + 1
		default:
			return 0, driver.Corruptf("xz block at %d: bad LZMA2 chunk control byte %#02x at %d", off, ctl, pos)
		}
	}
}

// header checks the filters of the block header at off.
func (s *scanner) header(off int64) error {
	var hb [1]byte
	if err := s.read(hb[:], off); err != nil {
		return err
	}
	if hb[0] == 0 {
		return driver.Corruptf("xz index where a block header was expected at %d", off)
	}
	h := make([]byte, (int(hb[0])+1)*4) // at most 1 KiB
	if err := s.read(h, off); err != nil {
		return err
	}
	dicts, _, err := blockHeader(h, off)
	if err != nil {
		return err
	}
	for _, dict := range dicts {
		s.dict = max(s.dict, dict)
		s.dicts += dict
		if err := checkDict(dict, off, s.lim); err != nil {
			return err
		}
	}
	return nil
}

// blockHeader parses h, the whole block header at off, and returns the
// dictionaries of its LZMA2 filters and whether LZMA2 is its one filter
// (the decoder refuses any other).
func blockHeader(h []byte, off int64) (dicts []int64, lzma2 bool, err error) {
	n := len(h)
	if crc32.ChecksumIEEE(h[:n-4]) != binary.LittleEndian.Uint32(h[n-4:]) {
		return nil, false, driver.Corruptf("xz block header at %d: bad CRC-32", off)
	}
	flags := h[1]
	if flags&0x3c != 0 {
		return nil, false, driver.Corruptf("xz block header at %d: reserved flags %#02x", off, flags)
	}
	r := bytes.NewReader(h[2 : n-4])
	if flags&0x40 != 0 {
		if _, err := binary.ReadUvarint(r); err != nil {
			return nil, false, driver.Corruptf("xz block header at %d is damaged", off)
		}
	}
	if flags&0x80 != 0 {
		if _, err := binary.ReadUvarint(r); err != nil {
			return nil, false, driver.Corruptf("xz block header at %d is damaged", off)
		}
	}
	filters := int(flags&3) + 1
	for range filters {
		id, err1 := binary.ReadUvarint(r)
		plen, err2 := binary.ReadUvarint(r)
		if err1 != nil || err2 != nil || plen > uint64(r.Len()) {
			return nil, false, driver.Corruptf("xz block header at %d is damaged", off)
		}
		props := make([]byte, plen)
		r.Read(props)
		if id != 0x21 {
			continue // other filters are refused by the decoder
		}
		if plen != 1 || props[0] > 40 {
			return nil, false, driver.Corruptf("xz block header at %d: bad LZMA2 properties", off)
		}
		dict := int64(0xffffffff)
		if p := props[0]; p < 40 {
			dict = int64(2|p&1) << (p/2 + 11)
		}
		dicts = append(dicts, dict)
	}
	return dicts, filters == 1 && len(dicts) == 1, nil
}

// checkDict checks the dictionary that the block at off asks for against
// Limits.MaxWindow: it is what a decoder allocates.
func checkDict(dict, off int64, lim vfs.Limits) error {
	if dict > lim.MaxWindow {
		return driver.Limitf("xz block at %d needs a %d-byte dictionary, more than Limits.MaxWindow (%d)", off, dict, lim.MaxWindow)
	}
	return nil
}
