package imageadapter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"golang.org/x/image/tiff"

	"github.com/pipefs/pipefs/vfs/driver"
)

// maxIFDEntries bounds the entries of one TIFF IFD.
const maxIFDEntries = 1 << 12

// maxPages bounds the pages of a TIFF that are counted (Image.Pages) and
// listed.
const maxPages = 1 << 16

func init() {
	register(&codec{
		scheme: "tiff", extensions: []string{".tif", ".tiff"}, what: "a TIFF image", detail: `no "II*\0" or "MM\0*" at offset 0`,
		magic: anyTIFF, head: 4,
		parse: parseTIFF, decode: decodeTIFF,
	}, "tiff", "", 0, func(h, _ []byte, _ int64) bool { return anyTIFF(h) }, 4)
}

// anyTIFF reports a TIFF or BigTIFF header, so that BigTIFF is detected
// and reported as not read.
func anyTIFF(h []byte) bool { return isTIFF(h) || isBigTIFF(h) }

func isTIFF(h []byte) bool {
	return len(h) >= 4 && (string(h[:4]) == "II*\x00" || string(h[:4]) == "MM\x00*")
}

func isBigTIFF(h []byte) bool {
	return len(h) >= 4 && (string(h[:4]) == "II+\x00" || string(h[:4]) == "MM\x00+")
}

// tiffOrder returns the byte order of the TIFF r, failing for BigTIFF.
func tiffOrder(r *input) (binary.ByteOrder, error) {
	var b [4]byte
	if err := r.readAt(b[:], 0, "tiff"); err != nil {
		return nil, err
	}
	if isBigTIFF(b[:]) {
		return nil, fmt.Errorf("%w: tiff: BigTIFF", errors.ErrUnsupported)
	}
	if b[0] == 'I' {
		return binary.LittleEndian, nil
	}
	return binary.BigEndian, nil
}

// ifdKey keys the IFD offsets of a TIFF in a vfs.Cache.
type ifdKey struct{ key string }

// tiffPages returns the offsets of the first IFDs of r, at most max+1 of
// them (so that a caller learns that there are more than max), following
// the chain of next-IFD offsets. A chain that loops back is corrupt. The
// whole chain, once walked, is kept in r's cache, so that opening each
// page of a long TIFF does not walk it again.
func tiffPages(ctx context.Context, r *input, max int) ([]int64, error) {
	if r.key != "" {
		if v, ok := r.cache.Get(ifdKey{r.key}); ok {
			pages := v.([]int64)
			return pages[:min(len(pages), max+1)], nil
		}
	}
	pages, err := walkIFDs(ctx, r, max)
	if err == nil && r.key != "" && len(pages) <= max {
		r.cache.Add(ifdKey{r.key}, pages, 8*int64(len(pages))+64)
	}
	return pages, err
}

// walkIFDs is tiffPages without the cache.
func walkIFDs(ctx context.Context, r *input, max int) ([]int64, error) {
	bo, err := tiffOrder(r)
	if err != nil {
		return nil, err
	}
	var b [4]byte
	if err := r.readAt(b[:], 4, "tiff"); err != nil {
		return nil, err
	}
	off := int64(bo.Uint32(b[:]))
	seen := map[int64]bool{}
	var pages []int64
	for off != 0 && len(pages) <= max {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if seen[off] {
			return nil, driver.Corruptf("tiff: the chain of IFDs loops back to offset %d after %d pages", off, len(pages))
		}
		if off < 8 || off >= r.size {
			return nil, driver.Corruptf("tiff: IFD %d at offset %d, outside the file", len(pages), off)
		}
		seen[off] = true
		pages = append(pages, off)
		var n [2]byte
		if err := r.readAt(n[:], off, "tiff"); err != nil {
			return nil, err
		}
		next := off + 2 + 12*int64(bo.Uint16(n[:]))
		if err := r.readAt(b[:], next, "tiff"); err != nil {
			return nil, err
		}
		off = int64(bo.Uint32(b[:]))
	}
	if len(pages) == 0 {
		return nil, driver.Corruptf("tiff: no IFD")
	}
	return pages, nil
}

// An ifd is the tags of one TIFF page that the header needs.
type ifd map[uint16][]uint32

func (t ifd) first(tag uint16, def uint32) uint32 {
	if v := t[tag]; len(v) > 0 {
		return v[0]
	}
	return def
}

// readIFD reads the tags at off: every SHORT and LONG tag's values, at
// most 8 of them each (the counts are kept for the rest: a colour map's
// size is its count).
func readIFD(r *input, bo binary.ByteOrder, off int64) (ifd, map[uint16]uint32, error) {
	var n [2]byte
	if err := r.readAt(n[:], off, "tiff"); err != nil {
		return nil, nil, err
	}
	count := int(bo.Uint16(n[:]))
	if count > maxIFDEntries {
		return nil, nil, driver.Corruptf("tiff: IFD of %d entries", count)
	}
	b := make([]byte, 12*count)
	if err := r.readAt(b, off+2, "tiff"); err != nil {
		return nil, nil, err
	}
	tags, counts := ifd{}, map[uint16]uint32{}
	for i := range count {
		e := b[12*i:]
		tag, typ, cnt := bo.Uint16(e), bo.Uint16(e[2:]), bo.Uint32(e[4:])
		counts[tag] = cnt
		size := map[uint16]int64{3: 2, 4: 4}[typ]
		if size == 0 {
			continue
		}
		k := int64(min(cnt, 8))
		vals := e[8:12]
		if int64(cnt)*size > 4 {
			vals = make([]byte, k*size)
			if err := r.readAt(vals, int64(bo.Uint32(e[8:])), "tiff"); err != nil {
				return nil, nil, err
			}
		}
		for j := range k {
			if size == 2 {
				tags[tag] = append(tags[tag], uint32(bo.Uint16(vals[2*j:])))
			} else {
				tags[tag] = append(tags[tag], bo.Uint32(vals[4*j:]))
			}
		}
	}
	return tags, counts, nil
}

// tiffCompression names the values of the Compression tag.
var tiffCompression = map[uint32]string{1: "none", 2: "ccitt rle", 3: "ccitt g3", 4: "ccitt g4", 5: "lzw",
	6: "old jpeg", 7: "jpeg", 8: "deflate", 32773: "packbits", 32946: "deflate", 34925: "lzma", 50000: "zstd", 50001: "webp"}

// parseTIFF reads the IFD of page.
func parseTIFF(ctx context.Context, r *input, page int) (*header, error) {
	pages, err := tiffPages(ctx, r, max(page, maxPages))
	if err != nil {
		return nil, err
	}
	if page >= len(pages) {
		return nil, fmt.Errorf("tiff: no page %d: the file has %d: %w", page, len(pages), fs.ErrNotExist)
	}
	bo, _ := tiffOrder(r)
	t, counts, err := readIFD(r, bo, pages[page])
	if err != nil {
		return nil, err
	}
	h := &header{width: int64(t.first(256, 0)), height: int64(t.first(257, 0))}
	h.img.Pages = len(pages)
	bps := t.first(258, 1)
	spp := t.first(277, 1)
	h.img.BitDepth = int(bps)
	h.img.Compression = tiffCompression[t.first(259, 1)]
	if h.img.Compression == "" {
		h.img.Compression = fmt.Sprint(t.first(259, 1))
	}
	if o := t.first(274, 0); o >= 1 && o <= 8 {
		h.img.Orientation = int(o)
	}
	_, h.img.ICC = counts[34675]
	if t.first(284, 1) != 1 {
		return nil, fmt.Errorf("%w: tiff: planar configuration %d (separate planes)", errors.ErrUnsupported, t.first(284, 1))
	}
	if f := t.first(339, 1); f != 1 {
		return nil, fmt.Errorf("%w: tiff: sample format %d (only unsigned integers are read)", errors.ErrUnsupported, f)
	}
	if bps != 1 && bps != 8 && bps != 16 {
		return nil, fmt.Errorf("%w: tiff: %d bits per sample (1, 8 and 16 are read)", errors.ErrUnsupported, bps)
	}
	h.depth16 = bps == 16
	switch photo := t.first(262, 1); photo {
	case 0, 1:
		h.img.ColorModel, h.channels, h.work = "gray", 1, 1
		if h.depth16 {
			h.work = 2
		}
		if spp != 1 {
			return nil, fmt.Errorf("%w: tiff: gray with %d samples per pixel (gray+alpha)", errors.ErrUnsupported, spp)
		}
	case 2:
		h.img.ColorModel, h.channels, h.work = "RGB", 3, 4
		if h.depth16 {
			h.work = 8
		}
		switch spp {
		case 3:
		case 4:
			switch t.first(338, 0) {
			case 1:
				h.img.AssociatedAlpha = true
			case 2:
			default:
				return nil, fmt.Errorf("%w: tiff: a fourth sample that is not alpha", errors.ErrUnsupported)
			}
			h.img.ColorModel, h.channels, h.img.Transparency = "RGBA", 4, true
		default:
			return nil, fmt.Errorf("%w: tiff: RGB with %d samples per pixel", errors.ErrUnsupported, spp)
		}
	case 3:
		h.img.ColorModel, h.channels, h.work, h.depth16 = "palette", 3, 1, false
		h.img.PaletteSize = int(counts[320] / 3)
	default:
		name := photometricNames[photo]
		if name == "" {
			name = "an unknown one"
		}
		return nil, fmt.Errorf("%w: tiff: photometric interpretation %d (%s); tiff: reads 0 and 1 (gray), 2 (RGB) and 3 (palette)", errors.ErrUnsupported, photo, name)
	}
	return h, nil
}

// photometricNames names the TIFF PhotometricInterpretation values that
// the tiff: scheme does not read (TIFF 6.0 and its supplements, DNG).
var photometricNames = map[uint32]string{
	4:     "transparency mask",
	5:     "CMYK",
	6:     "YCbCr",
	8:     "CIELab",
	9:     "ICCLab",
	10:    "ITULab",
	32844: "LogL",
	32845: "LogLuv",
	32803: "colour filter array",
	34892: "linear raw",
}

func decodeTIFF(ctx context.Context, r *input, page int, h *header, out []byte) error {
	pages, err := tiffPages(ctx, r, page)
	if err != nil {
		return err
	}
	if page >= len(pages) {
		return driver.Corruptf("tiff: page %d is gone", page)
	}
	bo, _ := tiffOrder(r)
	// The decoder reads the first IFD: a header that points at the page's.
	pr := &pageReader{r: r}
	copy(pr.hdr[:4], map[bool]string{true: "II*\x00", false: "MM\x00*"}[bo == binary.LittleEndian])
	bo.PutUint32(pr.hdr[4:], uint32(pages[page]))
	m, err := tiff.Decode(io.NewSectionReader(pr, 0, r.size))
	if err != nil {
		return r.cause(err, classifyTIFF)
	}
	return store(m, h, out, nil)
}

// pageReader reads a TIFF with its 8-byte header replaced.
type pageReader struct {
	r   io.ReaderAt
	hdr [8]byte
}

func (p *pageReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.r.ReadAt(b, off)
	if off < 8 {
		copy(b[:n], p.hdr[off:])
	}
	return n, err
}

func classifyTIFF(err error) error {
	var u tiff.UnsupportedError
	if errors.As(err, &u) {
		return fmt.Errorf("%w: %v", errors.ErrUnsupported, err)
	}
	return driver.Corruptf("%v", err)
}
