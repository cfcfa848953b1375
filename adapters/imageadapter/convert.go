package imageadapter

import (
	"image"
	"image/color"

	"github.com/pipefs/pipefs/vfs/driver"
)

// yuvFunc converts one Y'CbCr sample to RGB.
type yuvFunc func(y, cb, cr uint8) (r, g, b uint8)

// goYCbCr is Go's JFIF (full range) conversion, which JPEG uses.
func goYCbCr(y, cb, cr uint8) (uint8, uint8, uint8) { return color.YCbCrToRGB(y, cb, cr) }

// store writes m into out as h describes it: rows, then columns, then
// h.channels interleaved samples, 16-bit samples little endian. yuv
// converts Y'CbCr images. Samples are taken as stored wherever the
// decoder's type keeps them (non-premultiplied NRGBA as is, premultiplied
// RGBA as is), never through color.Color's premultiplied 16-bit form.
func store(m image.Image, h *header, out []byte, yuv yuvFunc) error {
	b := m.Bounds()
	if int64(b.Dx()) != h.width || int64(b.Dy()) != h.height {
		return driver.Corruptf("decoded %dx%d pixels, the header says %dx%d", b.Dx(), b.Dy(), h.width, h.height)
	}
	w, ch := int(h.width), h.channels
	if h.depth16 {
		return store16(m, h, out)
	}
	o := 0
	put := func(s ...uint8) {
		copy(out[o:o+ch], s[:ch])
		o += ch
	}
	// rgba puts the rows of 8-bit samples four to a pixel: all four, or
	// the first three, or the first and the fourth (gray and alpha).
	rgba := func(pix []uint8, stride int) {
		for y := range int(h.height) {
			row := pix[y*stride:]
			if ch == 4 {
				o += copy(out[o:], row[:4*w])
				continue
			}
			for x := range w {
				p := row[4*x : 4*x+4]
				if ch == 2 {
					put(p[0], p[3])
				} else {
					put(p[0], p[1], p[2], p[3])
				}
			}
		}
	}
	switch m := m.(type) {
	case *image.Gray:
		if ch == 1 {
			for y := range int(h.height) {
				o += copy(out[o:], m.Pix[y*m.Stride:y*m.Stride+w])
			}
			return nil
		}
	case *image.NRGBA:
		rgba(m.Pix, m.Stride)
		return nil
	case *image.RGBA:
		rgba(m.Pix, m.Stride) // premultiplied samples as stored
		return nil
	case *image.CMYK:
		if ch == 4 {
			rgba(m.Pix, m.Stride) // ink, as stored
			return nil
		}
	case *image.Paletted:
		pal := make([][4]uint8, len(m.Palette))
		for i, c := range m.Palette {
			if n, ok := c.(color.NRGBA); ok {
				pal[i] = [4]uint8{n.R, n.G, n.B, n.A}
				continue
			}
			// Deeper entries (a TIFF colour map's are 16-bit) are
			// scaled to 8 bits.
			n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
			pal[i] = [4]uint8{round8(n.R), round8(n.G), round8(n.B), round8(n.A)}
		}
		for y := range int(h.height) {
			row := m.Pix[y*m.Stride:]
			for x := range w {
				i := int(row[x])
				if i >= len(pal) {
					return driver.Corruptf("palette index %d, the palette has %d colours", i, len(pal))
				}
				p := pal[i]
				if ch <= 2 {
					put(p[0], p[3])
				} else {
					put(p[0], p[1], p[2], p[3])
				}
			}
		}
		return nil
	case *image.YCbCr:
		if yuv == nil {
			yuv = goYCbCr
		}
		for y := range int(h.height) {
			for x := range w {
				yi, ci := m.YOffset(x+b.Min.X, y+b.Min.Y), m.COffset(x+b.Min.X, y+b.Min.Y)
				if ch == 1 {
					put(m.Y[yi])
					continue
				}
				r, g, bl := yuv(m.Y[yi], m.Cb[ci], m.Cr[ci])
				put(r, g, bl, 0xff)
			}
		}
		return nil
	case *image.NYCbCrA:
		if yuv == nil {
			yuv = goYCbCr
		}
		for y := range int(h.height) {
			for x := range w {
				yi, ci := m.YOffset(x+b.Min.X, y+b.Min.Y), m.COffset(x+b.Min.X, y+b.Min.Y)
				ai := m.AOffset(x+b.Min.X, y+b.Min.Y)
				r, g, bl := yuv(m.Y[yi], m.Cb[ci], m.Cr[ci])
				put(r, g, bl, m.A[ai])
			}
		}
		return nil
	}
	// Anything else, through the non-premultiplied model.
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			switch ch {
			case 1:
				put(color.GrayModel.Convert(m.At(x, y)).(color.Gray).Y)
			case 2:
				n := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
				put(n.R, n.A)
			default:
				n := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
				put(n.R, n.G, n.B, n.A)
			}
		}
	}
	return nil
}

// store16 is store for 16-bit samples.
func store16(m image.Image, h *header, out []byte) error {
	w, ch := int(h.width), h.channels
	o := 0
	put := func(s ...uint16) {
		for _, v := range s[:ch] {
			out[o], out[o+1] = uint8(v), uint8(v>>8)
			o += 2
		}
	}
	be := func(p []uint8, i int) uint16 { return uint16(p[2*i])<<8 | uint16(p[2*i+1]) }
	// rgba puts the rows of 16-bit big-endian RGBA samples.
	rgba := func(pix []uint8, stride int) {
		for y := range int(h.height) {
			row := pix[y*stride:]
			for x := range w {
				r, g, b, a := be(row, 4*x), be(row, 4*x+1), be(row, 4*x+2), be(row, 4*x+3)
				if ch == 2 {
					put(r, a)
				} else {
					put(r, g, b, a)
				}
			}
		}
	}
	switch m := m.(type) {
	case *image.Gray16:
		for y := range int(h.height) {
			row := m.Pix[y*m.Stride:]
			for x := range w {
				v := be(row, x)
				if ch == 1 {
					put(v)
				} else {
					put(v, v, v, 0xffff)
				}
			}
		}
		return nil
	case *image.NRGBA64:
		rgba(m.Pix, m.Stride)
		return nil
	case *image.RGBA64:
		rgba(m.Pix, m.Stride) // premultiplied samples as stored, as store does
		return nil
	}
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n := color.NRGBA64Model.Convert(m.At(x, y)).(color.NRGBA64)
			switch ch {
			case 1, 2:
				put(n.R, n.A)
			default:
				put(n.R, n.G, n.B, n.A)
			}
		}
	}
	return nil
}

// round8 scales a 16-bit sample to 8 bits as libtiff does for colour maps
// (TIFFRGBAImage), rounding down.
func round8(v uint16) uint8 { return uint8(uint32(v) * 255 / 65535) }

// unpremultiply turns 8-bit RGBA premultiplied with rounding down (as the
// AVIF decoder does: p = c*a/255, rounded down) into straight RGBA, in
// place: each colour becomes the middle of the range that gives its p,
// within 255/(2a) of the straight colour.
func unpremultiply(pix []uint8) {
	for i := 0; i+3 < len(pix); i += 4 {
		a := uint32(pix[i+3])
		if a == 0xff {
			continue
		}
		for k := range 3 {
			if a == 0 {
				pix[i+k] = 0
			} else {
				pix[i+k] = uint8(min((2*uint32(pix[i+k])+1)*255/(2*a), 255))
			}
		}
	}
}
