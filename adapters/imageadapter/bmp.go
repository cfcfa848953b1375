package imageadapter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/image/bmp"

	"github.com/pipefs/pipefs/vfs/driver"
)

func init() {
	register(&codec{
		scheme: "bmp", extensions: []string{".bmp"}, what: "a BMP image", detail: `no "BM" at offset 0`,
		magic: func(h []byte) bool { return string(h) == "BM" }, head: 2,
		parse: parseBMP, decode: decodeBMP,
	}, "bmp", "BM", 0, matchBMP, 18)
}

// matchBMP checks what follows "BM" in the file header: reserved bytes
// zero and a DIB header size BMP writers use, so that text starting
// with "BM" is not taken for a bitmap.
func matchBMP(head, _ []byte, _ int64) bool {
	if len(head) < 18 || binary.LittleEndian.Uint32(head[6:]) != 0 {
		return false
	}
	switch binary.LittleEndian.Uint32(head[14:]) {
	case 12, 40, 52, 56, 64, 108, 124:
		return true
	}
	return false
}

// parseBMP reads the file and DIB headers.
func parseBMP(ctx context.Context, r *input, _ int) (*header, error) {
	var b [14 + 124]byte
	if err := r.readAt(b[:18], 0, "bmp"); err != nil {
		return nil, err
	}
	dib := int64(binary.LittleEndian.Uint32(b[14:]))
	if dib != 40 && dib != 108 && dib != 124 {
		return nil, fmt.Errorf("%w: bmp: DIB header of %d bytes (only BITMAPINFOHEADER, V4 and V5 are read)", errors.ErrUnsupported, dib)
	}
	if err := r.readAt(b[18:14+dib], 18, "bmp"); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	w, hgt := int64(int32(le.Uint32(b[18:]))), int64(int32(le.Uint32(b[22:])))
	if hgt < 0 {
		hgt = -hgt
	}
	if w < 0 {
		return nil, driver.Corruptf("bmp: negative width %d", w)
	}
	bpp, comp := int(le.Uint16(b[28:])), le.Uint32(b[30:])
	h := &header{width: w, height: hgt, channels: 3, work: 4}
	h.img.BitDepth = bpp
	switch bpp {
	case 1, 2, 4, 8:
		h.img.ColorModel, h.work = "palette", 1
		h.img.PaletteSize = int(le.Uint32(b[46:]))
		if h.img.PaletteSize == 0 {
			h.img.PaletteSize = 1 << bpp
		}
	case 24:
		h.img.ColorModel = "BGR"
	case 32:
		h.img.ColorModel = "BGR"
		if dib > 40 { // V4 and V5 headers have an alpha mask
			h.img.ColorModel, h.channels, h.img.Transparency = "BGRA", 4, true
		}
	default:
		return nil, fmt.Errorf("%w: bmp: %d bits per pixel", errors.ErrUnsupported, bpp)
	}
	if comp != 0 && comp != 3 {
		return nil, fmt.Errorf("%w: bmp: compression %d (RLE, JPEG or PNG)", errors.ErrUnsupported, comp)
	}
	if dib >= 108 {
		switch string(b[70:74]) {
		case "BGRs", "niW ": // LCS_sRGB, LCS_WINDOWS_COLOR_SPACE
			h.img.SRGB = true
		case "DEBM", "KNIL": // PROFILE_EMBEDDED, PROFILE_LINKED
			h.img.ICC = true
		}
	}
	return h, nil
}

func decodeBMP(ctx context.Context, r *input, _ int, h *header, out []byte) error {
	m, err := bmp.Decode(r.reader())
	if err != nil {
		return r.cause(err, classifyBMP)
	}
	return store(m, h, out, nil)
}

func classifyBMP(err error) error {
	if errors.Is(err, bmp.ErrUnsupported) {
		return fmt.Errorf("%w: %v", errors.ErrUnsupported, err)
	}
	return driver.Corruptf("%v", err)
}
