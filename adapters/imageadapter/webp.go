package imageadapter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"

	"golang.org/x/image/webp"

	"github.com/pipefs/pipefs/vfs/driver"
)

// maxWebPChunks bounds the chunks of an extended (VP8X) WebP read for its
// header.
const maxWebPChunks = 1 << 10

func init() {
	register(&codec{
		scheme: "webp", extensions: []string{".webp"}, what: "a WebP image", detail: `no "RIFF....WEBP" at offset 0`,
		magic: func(h []byte) bool { return len(h) == 12 && string(h[:4]) == "RIFF" && string(h[8:]) == "WEBP" },
		head:  12,
		parse: parseWebP, decode: decodeWebP,
	}, "webp", "RIFF????WEBP", 0, nil, 0)
}

// parseWebP reads the RIFF header and the first chunks: VP8 (lossy), VP8L
// (lossless) or VP8X (extended: flags, then the image chunks).
func parseWebP(ctx context.Context, r *input, _ int) (*header, error) {
	var b [30]byte
	if err := r.readAt(b[:20], 0, "webp"); err != nil {
		return nil, err
	}
	h := &header{channels: 3, work: 2}
	h.img.BitDepth = 8
	riffEnd := min(int64(binary.LittleEndian.Uint32(b[4:]))+8, r.size)
	switch string(b[12:16]) {
	case "VP8 ", "VP8L":
		if err := frameWebP(r, h, string(b[12:16]), 12); err != nil {
			return nil, err
		}
		return h, nil
	case "VP8X":
	default:
		return nil, driver.Corruptf("webp: first chunk %q is none of VP8, VP8L, VP8X", b[12:16])
	}
	if err := r.readAt(b[20:30], 20, "webp"); err != nil {
		return nil, err
	}
	flags := b[20]
	if flags&0x02 != 0 {
		return nil, fmt.Errorf("%w: webp: animated images", errors.ErrUnsupported)
	}
	h.img.ICC = flags&0x20 != 0
	alpha := flags&0x10 != 0
	canvasW := int64(b[24]) | int64(b[25])<<8 | int64(b[26])<<16
	canvasH := int64(b[27]) | int64(b[28])<<8 | int64(b[29])<<16
	off := 12 + 8 + int64(binary.LittleEndian.Uint32(b[16:]))
	found := false
	for range maxWebPChunks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if off+8 > riffEnd {
			break
		}
		var c [8]byte
		if err := r.readAt(c[:], off, "webp"); err != nil {
			return nil, err
		}
		n := int64(binary.LittleEndian.Uint32(c[4:]))
		switch typ := string(c[:4]); typ {
		case "VP8 ", "VP8L":
			if found {
				break
			}
			if err := frameWebP(r, h, typ, off); err != nil {
				return nil, err
			}
			found = true
		case "EXIF":
			if n <= maxExif {
				ex := make([]byte, n)
				if err := r.readAt(ex, off+8, "webp"); err != nil {
					return nil, err
				}
				h.img.Orientation = exifOrientation(ex)
			}
		}
		off += 8 + n + n&1
	}
	if !found {
		return nil, driver.Corruptf("webp: no VP8 or VP8L chunk")
	}
	if h.width != canvasW+1 || h.height != canvasH+1 {
		return nil, driver.Corruptf("webp: canvas %dx%d, image %dx%d", canvasW+1, canvasH+1, h.width, h.height)
	}
	if alpha {
		h.channels, h.img.Transparency = 4, true
		h.work = 4
	}
	h.img.ColorModel = map[int]string{3: "RGB", 4: "RGBA"}[h.channels]
	if h.img.Compression == "lossy" {
		h.img.ColorModel = "YCbCr"
	}
	return h, nil
}

// frameWebP reads the frame header of the VP8 or VP8L chunk at off.
func frameWebP(r *input, h *header, typ string, off int64) error {
	var f [10]byte
	if err := r.readAt(f[:], off+8, "webp"); err != nil {
		return err
	}
	if typ == "VP8 " {
		if string(f[3:6]) != "\x9d\x01\x2a" {
			return driver.Corruptf("webp: no VP8 start code")
		}
		h.width = int64(binary.LittleEndian.Uint16(f[6:]) & 0x3fff)
		h.height = int64(binary.LittleEndian.Uint16(f[8:]) & 0x3fff)
		h.img.Compression, h.img.ColorModel, h.work = "lossy", "YCbCr", 2
		return nil
	}
	if f[0] != 0x2f {
		return driver.Corruptf("webp: no VP8L signature")
	}
	v := binary.LittleEndian.Uint32(f[1:])
	h.width = int64(v&0x3fff) + 1
	h.height = int64(v>>14&0x3fff) + 1
	h.img.Compression, h.img.ColorModel, h.work = "lossless", "RGB", 4
	if v>>28&1 != 0 {
		h.channels, h.img.ColorModel, h.img.Transparency = 4, "RGBA", true
	}
	return nil
}

func decodeWebP(ctx context.Context, r *input, _ int, h *header, out []byte) error {
	m, err := webp.Decode(r.reader())
	if err != nil {
		return r.cause(err, func(err error) error { return driver.Corruptf("%v", err) })
	}
	// Lossy images: 4:2:0 planes, upsampled as dwebp does by default.
	switch y := m.(type) {
	case *image.YCbCr:
		if h.channels == 3 && y.SubsampleRatio == image.YCbCrSubsampleRatio420 && storeUpsampled(y, nil, 0, 3, out, webpYUV, webpFancy) {
			return nil
		}
	case *image.NYCbCrA:
		if h.channels == 4 && y.SubsampleRatio == image.YCbCrSubsampleRatio420 && storeUpsampled(&y.YCbCr, y.A, y.AStride, 4, out, webpYUV, webpFancy) {
			return nil
		}
	}
	return store(m, h, out, webpYUV)
}

// webpYUV is libwebp's conversion (VP8YUVToR, VP8YUVToG, VP8YUVToB in
// src/dsp/yuv.h): BT.601 limited range, 14-bit fixed point. With chroma
// upsampled by webpFancy it gives exactly what dwebp gives.
func webpYUV(y, u, v uint8) (uint8, uint8, uint8) {
	mulHi := func(v, c int) int { return v * c >> 8 }
	yy := mulHi(int(y), 19077)
	return clip8(yy + mulHi(int(v), 26149) - 14234),
		clip8(yy - mulHi(int(u), 6419) - mulHi(int(v), 13320) + 8708),
		clip8(yy + mulHi(int(u), 33050) - 17685)
}

// clip8 is libwebp's VP8Clip8: v has 6 fractional bits.
func clip8(v int) uint8 {
	const mask = 256<<6 - 1
	if v&^mask == 0 {
		return uint8(v >> 6)
	}
	if v < 0 {
		return 0
	}
	return 255
}
