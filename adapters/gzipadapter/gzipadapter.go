package gzipadapter

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"time"
	"unicode/utf8"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/internal/inflate"
	"github.com/pipefs/pipefs/internal/lazysize"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "gzip", OpenFile: open, Options: (*Options)(nil)})
	vfs.RegisterFormat(&vfs.Format{Name: "gzip", Adapter: "gzip:", Input: vfs.KindFile, Magic: "\x1f\x8b\x08"})
}

// Options are the options of the gzip adapter, set under the "gzip" key
// of vfs.Options.Schemes.
type Options struct {
	// Spacing is the distance in output bytes between the checkpoints of
	// the index; 0 means inflate.DefaultSpacing (1 MiB), and a smaller
	// value is rounded up to 64 KiB. Closer checkpoints make a random
	// read decode less, and the index larger (about 32 KiB a checkpoint).
	Spacing int64
}

const (
	flagText    = 1 << 0
	flagHCRC    = 1 << 1
	flagExtra   = 1 << 2
	flagName    = 1 << 3
	flagComment = 1 << 4
	flagReserve = 0xe0
	maxExtra    = 64 << 10
)

var errNotGzip = errors.New("not a gzip member")

// readHeader parses the member header at off and returns it with the
// offset of its DEFLATE data. The header's Name and Comment are decoded
// from ISO 8859-1 when they are not UTF-8, and its ModTime is zero when
// MTIME is unset.
func readHeader(ctx context.Context, src driver.Blob, off, size int64, maxName int) (*gzip.Header, int64, error) {
	sr := io.NewSectionReader(driver.ReaderAt(ctx, src), off, size-off)
	br := bufio.NewReaderSize(sr, 512)
	crc := crc32.NewIEEE()
	var n int64
	read := func(p []byte) error {
		k, err := io.ReadFull(br, p)
		n += int64(k)
		crc.Write(p[:k])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return driver.Corruptf("gzip header at %d is truncated", off)
		}
		return err
	}
	var fixed [10]byte
	if err := read(fixed[:]); err != nil {
		if n < 3 {
			return nil, 0, errNotGzip
		}
		return nil, 0, err
	}
	if fixed[0] != 0x1f || fixed[1] != 0x8b {
		return nil, 0, errNotGzip
	}
	if fixed[2] != 8 {
		return nil, 0, driver.Corruptf("gzip member at %d: compression method %d, want 8 (deflate)", off, fixed[2])
	}
	flg := fixed[3]
	if flg&flagReserve != 0 {
		return nil, 0, driver.Corruptf("gzip member at %d: reserved flag bits %#02x set", off, flg&flagReserve)
	}
	h := &gzip.Header{OS: fixed[9]}
	if t := binary.LittleEndian.Uint32(fixed[4:8]); t != 0 {
		h.ModTime = time.Unix(int64(t), 0)
	}
	if flg&flagExtra != 0 {
		var xl [2]byte
		if err := read(xl[:]); err != nil {
			return nil, 0, err
		}
		// FEXTRA is at most 64 KiB by construction (a 16-bit length).
		h.Extra = make([]byte, binary.LittleEndian.Uint16(xl[:]))
		if err := read(h.Extra); err != nil {
			return nil, 0, err
		}
	}
	zstring := func(what string) (string, error) {
		var b []byte
		for {
			c, err := br.ReadByte()
			if err != nil {
				if err == io.EOF {
					err = driver.Corruptf("gzip header at %d is truncated in its %s", off, what)
				}
				return "", err
			}
			n++
			crc.Write([]byte{c})
			if c == 0 {
				break
			}
			// Cap what the header can make us hold.
			if len(b) >= maxName {
				return "", driver.Limitf("gzip %s at %d is longer than Limits.MaxNameLength (%d)", what, off, maxName)
			}
			b = append(b, c)
		}
		if utf8.Valid(b) {
			return string(b), nil
		}
		r := make([]rune, len(b)) // ISO 8859-1
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), nil
	}
	var err error
	if flg&flagName != 0 {
		if h.Name, err = zstring("name"); err != nil {
			return nil, 0, err
		}
	}
	if flg&flagComment != 0 {
		if h.Comment, err = zstring("comment"); err != nil {
			return nil, 0, err
		}
	}
	if flg&flagHCRC != 0 {
		want := uint16(crc.Sum32())
		var hc [2]byte
		if err := read(hc[:]); err != nil {
			return nil, 0, err
		}
		if got := binary.LittleEndian.Uint16(hc[:]); got != want {
			return nil, 0, driver.Corruptf("gzip member at %d: header CRC %04x, computed %04x", off, got, want)
		}
	}
	return h, off + n, nil
}

// framer checks member trailers and finds the next member.
type framer struct {
	src     driver.Blob
	size    int64
	maxName int
}

func (f *framer) Next(ctx context.Context, i int, end int64, crc uint32, size int64) (int64, bool, error) {
	var tr [8]byte
	n, err := f.src.ReadAt(ctx, tr[:], end)
	if n < len(tr) {
		if err == nil || err == io.EOF {
			err = driver.Corruptf("gzip member %d: trailer at %d is truncated", i, end)
		}
		return 0, false, err
	}
	if got := binary.LittleEndian.Uint32(tr[:4]); got != crc {
		return 0, false, driver.Corruptf("gzip member %d: CRC-32 of the data is %08x, the trailer says %08x", i, crc, got)
	}
	if got := binary.LittleEndian.Uint32(tr[4:]); got != uint32(size) {
		return 0, false, driver.Corruptf("gzip member %d: data is %d bytes, the trailer says %d (mod 2^32)", i, size, got)
	}
	next := end + 8
	if next == f.size {
		return 0, false, nil
	}
	_, data, err := readHeader(ctx, f.src, next, f.size, f.maxName)
	if err == errNotGzip {
		return 0, false, driver.Corruptf("trailing garbage at %d after gzip member %d", next, i)
	}
	if err != nil {
		return 0, false, err
	}
	return data, true, nil
}

func open(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	info := src.Stat()
	lim := env.Limits
	h, data, err := readHeader(ctx, src, 0, info.Size(), lim.MaxNameLength)
	if err == errNotGzip {
		err = vfs.NotFormat(ctx, env.Options, src, "gzip", "a gzip stream", "no gzip magic at offset 0")
	}
	if err != nil {
		return driver.Location{}, err
	}
	var spacing int64
	if o := vfs.SchemeOptions[*Options](env); o != nil {
		spacing = o.Spacing
	}
	iopts := &inflate.Options{Spacing: spacing, Limits: lim, Cache: env.Cache}
	key := ""
	if env.URL != "" {
		// The spacing is part of the key: an index is reused only by
		// opens that ask for its spacing.
		key = fmt.Sprintf("gzip\x00%s\x00%d\x00%d\x00%d", env.URL, info.Size(), info.ModTime().UnixNano(), iopts.EffectiveSpacing())
	}
	fr := &framer{src: src, size: info.Size(), maxName: lim.MaxNameLength}
	s := inflate.New(src, data, fr, key, iopts)
	mtime := h.ModTime
	if mtime.IsZero() {
		mtime = info.ModTime()
	}
	size := func(ctx context.Context) (int64, error) {
		n, err := s.Size(ctx)
		if errors.Is(err, driver.ErrCorrupt) || errors.Is(err, driver.ErrLimit) {
			s.Forget() // a bad stream's partial index is not kept
		}
		return n, err
	}
	b := &blob{
		s:     s,
		info:  lazysize.New(ctx, outputName(h.Name, info.Name()), info.Mode(), mtime, h, size, s.Index().Size, lim.MaxFileSize),
		csize: driver.CompressedSize(src),
	}
	return driver.Location{Blob: b}, nil
}

// outputName picks the name of the decompressed file.
func outputName(fname, input string) string {
	if safeName(fname) {
		return fname
	}
	return fsname.Decompressed("gzip", input)
}

func safeName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || r == ':' {
			return false
		}
	}
	return true
}

// blob is the decompressed stream.
type blob struct {
	s     *inflate.Stream
	info  *lazysize.Info
	csize int64
}

var (
	_ driver.Blob       = (*blob)(nil)
	_ driver.Streamer   = (*blob)(nil)
	_ io.Closer         = (*blob)(nil)
	_ driver.Compressed = (*blob)(nil)
)

func (b *blob) Stat() fs.FileInfo { return b.info }

func (b *blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return b.s.ReadAt(ctx, p, off)
}

// Stream reads the output forward from off, building the index and
// learning the size on its way (see the package documentation).
func (b *blob) Stream(ctx context.Context, off int64) (io.ReadCloser, error) {
	return b.s.Stream(ctx, off)
}

func (b *blob) Close() error { return b.s.Close() }

// CompressedSize returns the compressed size at the bottom of the nest.
func (b *blob) CompressedSize() int64 { return b.csize }
