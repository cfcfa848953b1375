package imageadapter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image/png"

	"github.com/pipefs/pipefs/vfs/driver"
)

const pngMagic = "\x89PNG\r\n\x1a\n"

// maxPNGChunks bounds the chunks read before the first IDAT.
const maxPNGChunks = 1 << 12

func init() {
	register(&codec{
		scheme: "png", extensions: []string{".png"}, what: "a PNG image", detail: "no PNG signature at offset 0",
		magic: func(h []byte) bool { return string(h) == pngMagic }, head: len(pngMagic),
		parse: parsePNG, decode: decodePNG,
	}, "png", pngMagic, 0, nil, 0)
}

// parsePNG reads IHDR and the chunks before the first IDAT.
func parsePNG(ctx context.Context, r *input, _ int) (*header, error) {
	var b [33]byte
	if err := r.readAt(b[:], 0, "png"); err != nil {
		return nil, err
	}
	if binary.BigEndian.Uint32(b[8:]) != 13 || string(b[12:16]) != "IHDR" {
		return nil, driver.Corruptf("png: the first chunk is not a 13-byte IHDR")
	}
	h := &header{width: int64(binary.BigEndian.Uint32(b[16:])), height: int64(binary.BigEndian.Uint32(b[20:]))}
	depth, ctype := int(b[24]), b[25]
	if h.width > 1<<31-1 || h.height > 1<<31-1 {
		return nil, driver.Corruptf("png: dimensions %dx%d exceed 2^31-1", h.width, h.height)
	}
	h.img.BitDepth = depth
	h.depth16 = depth == 16
	switch ctype {
	case 0:
		h.channels, h.img.ColorModel = 1, "gray"
	case 2:
		h.channels, h.img.ColorModel = 3, "RGB"
	case 3:
		h.channels, h.img.ColorModel = 3, "palette"
		h.depth16 = false
	case 4:
		h.channels, h.img.ColorModel = 2, "gray+alpha"
	case 6:
		h.channels, h.img.ColorModel = 4, "RGBA"
	default:
		return nil, driver.Corruptf("png: colour type %d", ctype)
	}
	// The chunks before the image data: palette, transparency, colour.
	off := int64(33)
	for range maxPNGChunks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var c [8]byte
		if err := r.readAt(c[:], off, "png"); err != nil {
			return nil, err
		}
		n, typ := int64(binary.BigEndian.Uint32(c[:])), string(c[4:])
		if n > 1<<31-1 {
			return nil, driver.Corruptf("png: chunk %q of %d bytes", typ, n)
		}
		switch typ {
		case "IDAT", "IEND":
			return finishPNG(h, ctype)
		case "PLTE":
			h.img.PaletteSize = int(n / 3)
		case "tRNS":
			h.img.Transparency = true
		case "sRGB":
			h.img.SRGB = true
		case "iCCP":
			h.img.ICC = true
		case "gAMA":
			if n == 4 {
				var g [4]byte
				if err := r.readAt(g[:], off+8, "png"); err != nil {
					return nil, err
				}
				h.img.Gamma = float64(binary.BigEndian.Uint32(g[:])) / 100000
			}
		case "eXIf":
			if n <= maxExif {
				ex := make([]byte, n)
				if err := r.readAt(ex, off+8, "png"); err != nil {
					return nil, err
				}
				h.img.Orientation = exifOrientation(ex)
			}
		}
		off += 12 + n
	}
	return nil, driver.Corruptf("png: more than %d chunks before the image data", maxPNGChunks)
}

// finishPNG sets what the header implies once the chunks before the data
// are read: a tRNS chunk adds an alpha channel, as Go's decoder gives it.
func finishPNG(h *header, ctype byte) (*header, error) {
	if h.img.Transparency {
		switch ctype {
		case 0:
			h.channels = 2
		case 2, 3:
			h.channels = 4
		}
	}
	// Go's decoder holds its own image: 1, 2, 4 or 8 bytes a pixel.
	switch {
	case ctype == 3:
		h.work = 1
	case ctype == 0 && !h.img.Transparency:
		h.work = 1
		if h.depth16 {
			h.work = 2
		}
	case h.depth16:
		h.work = 8
	default:
		h.work = 4
	}
	return h, nil
}

func decodePNG(ctx context.Context, r *input, _ int, h *header, out []byte) error {
	m, err := png.Decode(r.reader())
	if err != nil {
		return r.cause(err, classifyPNG)
	}
	return store(m, h, out, nil)
}

func classifyPNG(err error) error {
	var u png.UnsupportedError
	if errors.As(err, &u) {
		return fmt.Errorf("%w: %v", errors.ErrUnsupported, err)
	}
	return driver.Corruptf("%v", err)
}
