package imageadapter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/pipefs/pipefs/adapters/imageadapter/internal/jpegdec"
	"image"

	"github.com/pipefs/pipefs/vfs/driver"
)

// maxJPEGSegments bounds the marker segments read before the frame header.
const maxJPEGSegments = 1 << 12

func init() {
	register(&codec{
		scheme: "jpeg", extensions: []string{".jpg", ".jpeg"}, what: "a JPEG image", detail: "no JPEG SOI marker (ff d8 ff) at offset 0",
		magic: func(h []byte) bool { return string(h) == "\xff\xd8\xff" }, head: 3,
		parse: parseJPEG, decode: decodeJPEG,
	}, "jpeg", "\xff\xd8\xff", 0, nil, 0)
}

// parseJPEG reads the marker segments up to the frame header (SOFn).
func parseJPEG(ctx context.Context, r *input, _ int) (*header, error) {
	h := &header{}
	adobe := -1 // Adobe APP14 transform
	off := int64(2)
	for range maxJPEGSegments {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var m [4]byte
		if err := r.readAt(m[:2], off, "jpeg"); err != nil {
			return nil, err
		}
		if m[0] != 0xff {
			return nil, driver.Corruptf("jpeg: no marker at offset %d (%#02x)", off, m[0])
		}
		if m[1] == 0xff { // fill byte
			off++
			continue
		}
		marker := m[1]
		if marker == 0x01 || marker >= 0xd0 && marker <= 0xd8 { // no length
			off += 2
			continue
		}
		if marker == 0xd9 || marker == 0xda {
			return nil, driver.Corruptf("jpeg: no frame header (SOF) before %s", map[byte]string{0xd9: "EOI", 0xda: "SOS"}[marker])
		}
		if err := r.readAt(m[2:], off+2, "jpeg"); err != nil {
			return nil, err
		}
		n := int64(binary.BigEndian.Uint16(m[2:]))
		if n < 2 {
			return nil, driver.Corruptf("jpeg: segment %#02x of length %d", marker, n)
		}
		body := off + 4
		switch {
		case marker == 0xe1 && n-2 <= maxExif+6: // APP1: Exif
			b := make([]byte, n-2)
			if err := r.readAt(b, body, "jpeg"); err != nil {
				return nil, err
			}
			if len(b) > 6 && string(b[:6]) == "Exif\x00\x00" {
				h.img.Orientation = exifOrientation(b[6:])
			}
		case marker == 0xe2 && n-2 >= 12: // APP2: ICC_PROFILE
			var b [12]byte
			if err := r.readAt(b[:], body, "jpeg"); err != nil {
				return nil, err
			}
			if string(b[:]) == "ICC_PROFILE\x00" {
				h.img.ICC = true
			}
		case marker == 0xee && n-2 >= 12: // APP14: Adobe
			var b [12]byte
			if err := r.readAt(b[:], body, "jpeg"); err != nil {
				return nil, err
			}
			if string(b[:5]) == "Adobe" {
				adobe = int(b[11])
			}
		case marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc:
			return frameJPEG(r, h, marker, body, n, adobe)
		}
		off = body + n - 2
	}
	return nil, driver.Corruptf("jpeg: more than %d segments before the frame header", maxJPEGSegments)
}

// frameJPEG reads the frame header of marker at body.
func frameJPEG(r *input, h *header, marker byte, body, n int64, adobe int) (*header, error) {
	var f [6]byte
	if n < 8 {
		return nil, driver.Corruptf("jpeg: frame header of %d bytes", n)
	}
	if err := r.readAt(f[:], body, "jpeg"); err != nil {
		return nil, err
	}
	h.img.BitDepth = int(f[0])
	h.height, h.width = int64(binary.BigEndian.Uint16(f[1:])), int64(binary.BigEndian.Uint16(f[3:]))
	switch marker {
	case 0xc0, 0xc1:
		h.img.Compression = "baseline"
	case 0xc2:
		h.img.Compression = "progressive"
	default:
		return nil, fmt.Errorf("%w: jpeg: frame type SOF%d (lossless, hierarchical or arithmetic coding)", errors.ErrUnsupported, marker-0xc0)
	}
	if h.height == 0 {
		return nil, fmt.Errorf("%w: jpeg: the height is set by a DNL marker", errors.ErrUnsupported)
	}
	switch f[5] {
	case 1:
		h.channels, h.img.ColorModel, h.work = 1, "gray", 1
	case 3:
		h.channels, h.img.ColorModel, h.work = 3, "YCbCr", 4
		if adobe == 0 {
			h.img.ColorModel = "RGB"
		}
	case 4:
		h.channels, h.img.ColorModel, h.work = 4, "CMYK", 8
		if adobe == 2 {
			h.img.ColorModel = "YCCK"
		}
	default:
		return nil, fmt.Errorf("%w: jpeg: %d components", errors.ErrUnsupported, f[5])
	}
	return h, nil
}

func decodeJPEG(ctx context.Context, r *input, _ int, h *header, out []byte) error {
	m, err := jpegdec.Decode(r.reader())
	if err != nil {
		return r.cause(err, classifyJPEG)
	}
	if y, ok := m.(*image.YCbCr); ok && h.channels == 3 {
		if up := jpegUpsampler(y.SubsampleRatio); up != nil && storeUpsampled(y, nil, 0, 3, out, jpegYCbCr, up) {
			return nil
		}
	}
	return store(m, h, out, jpegYCbCr)
}

func classifyJPEG(err error) error {
	var u jpegdec.UnsupportedError
	if errors.As(err, &u) {
		return fmt.Errorf("%w: %v", errors.ErrUnsupported, err)
	}
	return driver.Corruptf("%v", err)
}

// libjpeg's Y'CbCr to RGB conversion (jdcolor.c, ycc_rgb_convert): JFIF
// full range in 16-bit fixed point, rounded as libjpeg rounds, so that
// colour conversion adds nothing to the IDCT's differences from libjpeg.
var jpegCrR, jpegCbB, jpegCrG, jpegCbG [256]int32

func init() {
	fix := func(x float64) int32 { return int32(x*(1<<16) + 0.5) }
	for i := range 256 {
		x := int32(i - 128)
		jpegCrR[i] = (fix(1.40200)*x + 1<<15) >> 16
		jpegCbB[i] = (fix(1.77200)*x + 1<<15) >> 16
		jpegCrG[i] = -fix(0.71414) * x
		jpegCbG[i] = -fix(0.34414)*x + 1<<15
	}
}

func jpegYCbCr(y, cb, cr uint8) (uint8, uint8, uint8) {
	clamp := func(v int32) uint8 { return uint8(min(max(v, 0), 255)) }
	yy := int32(y)
	return clamp(yy + jpegCrR[cr]), clamp(yy + (jpegCbG[cb]+jpegCrG[cr])>>16), clamp(yy + jpegCbB[cb])
}
