package precomputedadapter

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"github.com/pipefs/pipefs/vfs/driver"
)

// decodeImageChunk decodes a jpeg or png chunk of voxels voxels and
// channels channels of es-byte (1, or 2 for png) elements: an image of any
// width and height whose pixels, row after row, are the voxels in [x, y,
// z] Fortran order, the image's components the channels. It returns the
// voxels as C-order [channel, voxel] little-endian elements. The image's
// size is checked against voxels before it is decoded, so that a header
// cannot make it allocate more.
func decodeImageChunk(data []byte, format string, voxels int64, channels, es int) ([]byte, error) {
	var cfg image.Config
	var err error
	comps := channels
	if format == "png" {
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
		if err == nil {
			comps, err = pngComponents(data, es)
		}
	} else {
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
		if err == nil {
			switch cfg.ColorModel {
			case color.GrayModel:
				comps = 1
			case color.YCbCrModel, color.RGBAModel:
				comps = 3
			default:
				comps = 4 // CMYK
			}
		}
	}
	if err != nil {
		return nil, driver.Corruptf("%s chunk: %v", format, err)
	}
	if int64(cfg.Width)*int64(cfg.Height) != voxels {
		return nil, driver.Corruptf("%s chunk: a %dx%d image for %d voxels", format, cfg.Width, cfg.Height, voxels)
	}
	if comps != channels {
		return nil, driver.Corruptf("%s chunk: %d components for %d channels", format, comps, channels)
	}
	var img image.Image
	if format == "png" {
		img, err = png.Decode(bytes.NewReader(data))
	} else {
		img, err = jpeg.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, driver.Corruptf("%s chunk: %v", format, err)
	}
	out := make([]byte, voxels*int64(channels*es))
	b := img.Bounds()
	w := int64(b.Dx())
	put := func(n int64, c int, v uint16) {
		o := (int64(c)*voxels + n) * int64(es)
		if es == 1 {
			out[o] = byte(v >> 8)
		} else {
			binary.LittleEndian.PutUint16(out[o:], v)
		}
	}
	switch m := img.(type) {
	case *image.Gray:
		for n := int64(0); n < voxels; n++ {
			out[n] = m.Pix[int64(m.Stride)*(n/w)+n%w]
		}
	case *image.Gray16:
		for n := int64(0); n < voxels; n++ {
			i := int64(m.Stride)*(n/w) + 2*(n%w)
			put(n, 0, uint16(m.Pix[i])<<8|uint16(m.Pix[i+1]))
		}
	case *image.YCbCr:
		for n := int64(0); n < voxels; n++ {
			x, y := b.Min.X+int(n%w), b.Min.Y+int(n/w)
			yi, ci := m.YOffset(x, y), m.COffset(x, y)
			r, g, bl := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			out[n], out[voxels+n], out[2*voxels+n] = r, g, bl
		}
	default:
		for n := int64(0); n < voxels; n++ {
			c := color.NRGBA64Model.Convert(img.At(b.Min.X+int(n%w), b.Min.Y+int(n/w))).(color.NRGBA64)
			switch channels {
			case 1:
				put(n, 0, c.R)
			case 2:
				put(n, 0, c.R)
				put(n, 1, c.A)
			default:
				for k, v := range []uint16{c.R, c.G, c.B, c.A}[:channels] {
					put(n, k, v)
				}
			}
		}
	}
	return out, nil
}

// pngComponents returns the number of components of the png image in
// data (gray 1, gray and alpha 2, RGB and palette 3, RGBA 4), from its
// IHDR chunk, checking that its bit depth fits es-byte elements: 16 bits
// for 2-byte elements, at most 8 for 1-byte ones.
func pngComponents(data []byte, es int) (int, error) {
	// Signature (8), IHDR length and type (8), width, height (8), bit
	// depth, colour type.
	if len(data) < 26 {
		return 0, driver.Corruptf("png chunk: short header")
	}
	depth, ctype := data[24], data[25]
	if (es == 2) != (depth == 16) {
		return 0, driver.Corruptf("png chunk: bit depth %d for %d-byte voxels", depth, es)
	}
	switch ctype {
	case 0:
		return 1, nil
	case 4:
		return 2, nil
	case 2, 3:
		return 3, nil
	case 6:
		return 4, nil
	}
	return 0, driver.Corruptf("png chunk: colour type %d", ctype)
}
