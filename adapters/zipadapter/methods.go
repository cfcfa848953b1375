package zipadapter

import (
	"bufio"
	"compress/bzip2"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/streamblob"
	"github.com/pipefs/pipefs/vfs"
)

// Compression methods decoded forward, through internal/streamblob.
const (
	methodDeflate64 = 9
	methodBzip2     = 12
	methodLZMA      = 14
	methodZstdOld   = 20 // Zstandard's id before APPNOTE 6.3.7 gave it 93
	methodZstd      = 93
	methodXZ        = 95
	methodPPMd      = 98
	methodAES       = 99
)

// A codec decodes one compression method: with resume, when decoding can
// resume at points inside a member (resumableBlob); else with newReader,
// forward only (internal/streamblob).
type codec struct {
	name   string
	resume func(lim vfs.Limits) resumer
	// newReader returns the decoder of the member of h whose compressed
	// bytes r reads. It checks what it must before it allocates (an
	// LZMA dictionary against Limits.MaxWindow).
	newReader func(r *bufio.Reader, h *header, lim vfs.Limits) (io.Reader, error)
}

// codecs are the compression methods that are neither STORED nor DEFLATE
// and that pipefs decodes.
var codecs = map[uint16]codec{
	methodDeflate64: {name: "Deflate64", resume: func(vfs.Limits) resumer { return deflate64Resumer{} }},
	methodBzip2: {name: "bzip2", newReader: func(r *bufio.Reader, _ *header, _ vfs.Limits) (io.Reader, error) {
		// compress/bzip2 holds one block of at most 900 kB.
		return bzip2.NewReader(r), nil
	}},
	methodLZMA:    {name: "LZMA", newReader: newLZMA},
	methodZstdOld: {name: "Zstandard", resume: newZstdResumer},
	methodZstd:    {name: "Zstandard", resume: newZstdResumer},
	// The dictionaries an XZ member asks for are checked when it is
	// opened (xzDicts): the decoder allocates each block's.
	methodXZ: {name: "XZ", newReader: func(r *bufio.Reader, _ *header, _ vfs.Limits) (io.Reader, error) {
		return xz.ReaderConfig{DictCap: lzma.MinDictCap}.NewReader(r)
	}},
}

func newZstdResumer(lim vfs.Limits) resumer { return zstdResumer{lim} }

// lzmaHeaderLen is the length of the header of an LZMA member: the LZMA SDK
// version (2 bytes), the size of the properties (2 bytes, 5), and the
// properties (the lc/lp/pb byte and the dictionary size).
const lzmaHeaderLen = 9

// newLZMA decodes an LZMA member (APPNOTE 5.8.8): its header, then a raw
// LZMA stream, which ends with an end marker when flag bit 1 is set and
// at the member's size otherwise. The dictionary is at most the member's
// size: the output never reaches further back.
func newLZMA(r *bufio.Reader, h *header, lim vfs.Limits) (io.Reader, error) {
	var hd [lzmaHeaderLen]byte
	if _, err := io.ReadFull(r, hd[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if n := binary.LittleEndian.Uint16(hd[2:]); n != 5 {
		return nil, driver.Corruptf("LZMA member: properties size %d, not 5", n)
	}
	props := hd[4]
	if props >= 9*5*5 {
		return nil, driver.Corruptf("LZMA member: invalid properties byte %#x", props)
	}
	dict := min(int64(binary.LittleEndian.Uint32(hd[5:])), max(int64(h.usize), lzma.MinDictCap))
	if dict > lim.MaxWindow {
		return nil, driver.Limitf("LZMA member needs a %d-byte dictionary, more than Limits.MaxWindow (%d)", dict, lim.MaxWindow)
	}
	dict = max(dict, lzma.MinDictCap)
	// The classic .lzma header: properties, dictionary size, and the
	// size, all ones for "ends with the end marker".
	var classic [lzma.HeaderLen]byte
	classic[0] = props
	binary.LittleEndian.PutUint32(classic[1:], uint32(dict))
	size := ^uint64(0)
	if h.flags&2 == 0 {
		size = h.usize
	}
	binary.LittleEndian.PutUint64(classic[5:], size)
	return lzma.ReaderConfig{DictCap: int(dict)}.NewReader(&prefixed{pre: classic[:], r: r})
}

// prefixed reads pre, then r, one byte at a time as well as in blocks.
type prefixed struct {
	pre []byte
	r   *bufio.Reader
}

func (p *prefixed) Read(b []byte) (int, error) {
	if len(p.pre) > 0 {
		n := copy(b, p.pre)
		p.pre = p.pre[n:]
		return n, nil
	}
	return p.r.Read(b)
}

func (p *prefixed) ReadByte() (byte, error) {
	if len(p.pre) > 0 {
		c := p.pre[0]
		p.pre = p.pre[1:]
		return c, nil
	}
	return p.r.ReadByte()
}

// newCoded returns the blob of a member compressed with c, whose
// compressed data is [off, off+csize) of the archive. It decodes forward
// (internal/streamblob): a read at or after the last one continues its
// decoder, an earlier one starts over, and a read that stops short of the
// end returns its bytes once a pass has decoded the whole member and
// checked its size and CRC-32.
func (a *Archive) newCoded(ctx context.Context, c codec, h *header, off int64, fi *fileInfo) (driver.Blob, error) {
	if h.method == methodXZ {
		if err := xzDicts(ctx, a.blob, off, int64(h.csize), int64(h.usize), a.lim); err != nil {
			return nil, err
		}
	}
	src := driver.SectionBlob(a.blob, off, int64(h.csize), &driver.FileInfo{FName: fi.Name(), FSize: int64(h.csize), FMode: 0o444})
	usize, want := int64(h.usize), h.crc
	// archive/zip treats a CRC-32 of 0 as "not set"; so does this
	// package, as for DEFLATE.
	check := want != 0
	return streamblob.New(ctx, src, streamblob.Config{
		Format: c.name,
		NewReader: func(r io.Reader) (io.Reader, error) {
			br, ok := r.(*bufio.Reader)
			if !ok {
				br = bufio.NewReader(r)
			}
			d, err := c.newReader(br, h, a.lim)
			if err != nil {
				return nil, err
			}
			return &crcReader{r: d, name: c.name, size: usize, want: want, check: check}, nil
		},
		Size:    usize,
		Name:    fi.Name(),
		Mode:    fi.Mode(),
		ModTime: fi.ModTime(),
		Sys:     fi.Sys(),
	}, a.lim), nil
}

// A crcReader checks the output of a member's decoder against the
// member's size and CRC-32. The read that reaches the declared size reads
// on to the decoder's end, and returns no bytes but an error matching
// driver.ErrCorrupt when the stream goes on or the CRC-32 does not match:
// the bytes that end a bad member are withheld even from a stream.
type crcReader struct {
	r     io.Reader
	name  string
	size  int64
	want  uint32
	check bool

	n   int64
	crc uint32
}

// maxEmptyReads is how many empty reads in a row the decoder may return at
// the declared end before it is taken as stuck.
const maxEmptyReads = 100

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc = crc32.Update(c.crc, crc32.IEEETable, p[:n])
	c.n += int64(n)
	if err == nil && c.n == c.size {
		// The declared end: the stream must end here.
		var one [1]byte
		for i := 0; err == nil; i++ {
			var k int
			k, err = c.r.Read(one[:])
			switch {
			case k > 0:
				return 0, driver.Corruptf("%s member decodes to more than its %d bytes", c.name, c.size)
			case err == nil && i >= maxEmptyReads:
				err = fmt.Errorf("%s decoder: %w", c.name, io.ErrNoProgress)
			}
		}
	}
	if err == io.EOF && c.n == c.size && c.check && c.crc != c.want {
		return 0, driver.Corruptf("%s member: CRC-32 of the data is %08x, the directory says %08x", c.name, c.crc, c.want)
	}
	return n, err
}

// refuse returns the error for a member that pipefs does not decode: it
// names the method and says what reads it.
func refuse(h *header) error {
	if h.flags&1 != 0 || h.method == methodAES {
		return encrypted(h)
	}
	switch h.method {
	case methodPPMd:
		return fmt.Errorf("compression method 98 (PPMd, variant I rev. 1) is not decoded by pipefs: extract the member with 7z x or bsdtar -x, or rewrite the archive with another method (7z a -tzip -mm=Deflate): %w",
			errors.ErrUnsupported)
	}
	m := methodNames[h.method]
	if m != "" {
		m = " (" + m + ")"
	}
	return fmt.Errorf("compression method %d%s is not decoded by pipefs, which reads STORED, DEFLATE, Deflate64, bzip2, LZMA, Zstandard and XZ: extract the member with 7z x or bsdtar -x: %w",
		h.method, m, errors.ErrUnsupported)
}

// encrypted returns the error for an encrypted member: it names the
// encryption and, for WinZip AES (method 99), the method under it.
func encrypted(h *header) error {
	what := "traditional PKWARE encryption (ZipCrypto)"
	switch {
	case h.flags&0x40 != 0:
		what = "PKWARE strong encryption"
	case h.method == methodAES:
		what = "WinZip AES (method 99)"
		if bits, m, ok := aesExtra(h.extra); ok {
			what = fmt.Sprintf("WinZip AES-%d (method 99) over method %d", bits, m)
			if n := methodNames[m]; n != "" {
				what += " (" + n + ")"
			}
		}
	}
	return fmt.Errorf("member is encrypted with %s, and pipefs does not decrypt: extract it with 7z x -p or bsdtar -x --passphrase: %w",
		what, errors.ErrUnsupported)
}

// aesExtra reads the WinZip AES extra field (0x9901): the key size in bits
// and the compression method of the encrypted data.
func aesExtra(extra string) (bits int, method uint16, ok bool) {
	for len(extra) >= 4 {
		id, n := le16(extra, 0), int(le16(extra, 2))
		if 4+n > len(extra) {
			break
		}
		if id == 0x9901 && n >= 7 && extra[6:8] == "AE" {
			if s := extra[8]; s >= 1 && s <= 3 {
				bits = 64 + 64*int(s)
			}
			return bits, le16(extra, 9), bits != 0
		}
		extra = extra[4+n:]
	}
	return 0, 0, false
}
