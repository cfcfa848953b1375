package imageadapter

import "image"

// An upsampler fills dst, of the image's width, with the chroma samples
// of output row y, interpolated from the subsampled plane c as a
// reference decoder does. dst has the capacity of two samples for each of
// the plane's, and may be written that far.
type upsampler func(dst []uint8, rows chromaRows, y int)

// chromaRows is one chroma plane of a decoded Y'CbCr image: its samples
// as the decoder stores them (rows stride apart), and the extent that the
// image's own size gives it (width and height in samples, rounded up).
// Samples past the extent (a decoder's padding to whole blocks) are never
// read.
type chromaRows struct {
	pix    []uint8
	stride int
	w, h   int
}

// row returns row i of the plane, i clamped to the plane: the row above
// the first is the first, the row below the last is the last, as both
// libjpeg and libwebp extend the plane at its edges.
func (c chromaRows) row(i int) []uint8 {
	i = min(max(i, 0), c.h-1)
	return c.pix[i*c.stride : i*c.stride+c.w]
}

// nearRows returns the chroma row nearest output row y of a plane halved
// vertically, and the next nearest: the row above for an even y, below
// for an odd one.
func (c chromaRows) nearRows(y int) (near, far []uint8) {
	if y&1 == 0 {
		return c.row(y >> 1), c.row(y>>1 - 1)
	}
	return c.row(y >> 1), c.row(y>>1 + 1)
}

// The upsamplers of libjpeg-turbo's jdsample.c with fancy upsampling on,
// its default (jpeg_decompress_struct.do_fancy_upsampling): a triangle
// filter, each output sample 3/4 of the nearer input sample and 1/4 of
// the further, in each halved direction, with libjpeg's alternating
// rounding biases. libjpeg uses it only for planes wider than 2 samples;
// narrower planes are replicated.

// jpegH2V1 is h2v1_fancy_upsample (4:2:2).
func jpegH2V1(dst []uint8, c chromaRows, y int) {
	in := c.row(y)
	if c.w <= 2 {
		replicate2(dst, in)
		return
	}
	n := c.w
	out := dst[:2*n]
	out[0] = in[0]
	out[1] = uint8((3*int(in[0]) + int(in[1]) + 2) >> 2)
	for i := 1; i < n-1; i++ {
		v := 3 * int(in[i])
		out[2*i] = uint8((v + int(in[i-1]) + 1) >> 2)
		out[2*i+1] = uint8((v + int(in[i+1]) + 2) >> 2)
	}
	out[2*n-2] = uint8((3*int(in[n-1]) + int(in[n-2]) + 1) >> 2)
	out[2*n-1] = in[n-1]
}

// jpegH2V2 is h2v2_fancy_upsample (4:2:0).
func jpegH2V2(dst []uint8, c chromaRows, y int) {
	if c.w <= 2 {
		replicate2(dst, c.row(y>>1))
		return
	}
	near, far := c.nearRows(y)
	n := c.w
	out := dst[:2*n]
	sum := func(i int) int { return 3*int(near[i]) + int(far[i]) }
	last, this, next := 0, sum(0), sum(1)
	out[0] = uint8((this*4 + 8) >> 4)
	out[1] = uint8((this*3 + next + 7) >> 4)
	for i := 1; i < n-1; i++ {
		last, this, next = this, next, sum(i+1)
		out[2*i] = uint8((this*3 + last + 8) >> 4)
		out[2*i+1] = uint8((this*3 + next + 7) >> 4)
	}
	last, this = this, next
	out[2*n-2] = uint8((this*3 + last + 8) >> 4)
	out[2*n-1] = uint8((this*4 + 7) >> 4)
}

// jpegH1V2 is h1v2_fancy_upsample (4:4:0): vertical only, bias 1 when the
// further row is above, 2 when it is below.
func jpegH1V2(dst []uint8, c chromaRows, y int) {
	near, far := c.nearRows(y)
	bias := 1 + y&1
	for i := range dst {
		dst[i] = uint8((3*int(near[i]) + int(far[i]) + bias) >> 2)
	}
}

// webpFancy is libwebp's fancy upsampler (src/dsp/upsampling.c,
// UPSAMPLE_FUNC, as src/dec/io_dec.c's EmitFancyRGB drives it), dwebp's
// default for 4:2:0, the only sampling of lossy WebP: the 9-3-3-1 filter
// computed through two diagonal averages, with its own rounding.
func webpFancy(dst []uint8, c chromaRows, y int) {
	near, far := c.nearRows(y)
	n := len(dst)
	dst[0] = uint8((3*int(near[0]) + int(far[0]) + 2) >> 2)
	pairs := (n - 1) >> 1
	for x := 1; x <= pairs; x++ {
		tl, t := int(near[x-1]), int(near[x])
		l, u := int(far[x-1]), int(far[x])
		avg := tl + t + l + u + 8
		diag12 := (avg + 2*(t+l)) >> 3
		diag03 := (avg + 2*(tl+u)) >> 3
		dst[2*x-1] = uint8((diag12 + tl) >> 1)
		dst[2*x] = uint8((diag03 + t) >> 1)
	}
	if n&1 == 0 {
		dst[n-1] = uint8((3*int(near[pairs]) + int(far[pairs]) + 2) >> 2)
	}
}

// replicate2 is libjpeg's plain h2v1 and h2v2 upsampling: each sample of
// in twice, for the len(dst) output samples.
func replicate2(dst, in []uint8) {
	for i := range dst {
		dst[i] = in[i>>1]
	}
}

// jpegUpsampler returns libjpeg's fancy upsampler for a Y'CbCr image
// subsampled as r, or nil where libjpeg replicates samples (4:4:4 needs
// none; 4:1:1 and 4:1:0 are replicated).
func jpegUpsampler(r image.YCbCrSubsampleRatio) upsampler {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return jpegH2V1
	case image.YCbCrSubsampleRatio420:
		return jpegH2V2
	case image.YCbCrSubsampleRatio440:
		return jpegH1V2
	}
	return nil
}

// storeUpsampled writes the Y'CbCr image m (with alpha a, nil for none)
// into out as store does, its chroma upsampled by up and converted by
// yuv. ch is 3 or 4. It reports false, writing nothing, when m is not
// laid out as the decoders here lay it out (bounds at the origin).
func storeUpsampled(m *image.YCbCr, a []uint8, aStride int, ch int, out []byte, yuv yuvFunc, up upsampler) bool {
	b := m.Bounds()
	if b.Min != (image.Point{}) {
		return false
	}
	w, h := b.Dx(), b.Dy()
	cw, chh := chromaSize(m.SubsampleRatio, w, h)
	cb := chromaRows{pix: m.Cb, stride: m.CStride, w: cw, h: chh}
	cr := chromaRows{pix: m.Cr, stride: m.CStride, w: cw, h: chh}
	if cw == 0 || chh == 0 || len(m.Cb) < (chh-1)*m.CStride+cw || len(m.Cr) < (chh-1)*m.CStride+cw {
		return false
	}
	cbRow, crRow := make([]uint8, w, max(w, 2*cw)), make([]uint8, w, max(w, 2*cw))
	o := 0
	for y := range h {
		up(cbRow, cb, y)
		up(crRow, cr, y)
		yRow := m.Y[y*m.YStride : y*m.YStride+w]
		var aRow []uint8
		if a != nil {
			aRow = a[y*aStride : y*aStride+w]
		}
		for x, yy := range yRow {
			r, g, bl := yuv(yy, cbRow[x], crRow[x])
			out[o], out[o+1], out[o+2] = r, g, bl
			if ch == 4 {
				out[o+3] = 0xff
				if aRow != nil {
					out[o+3] = aRow[x]
				}
			}
			o += ch
		}
	}
	return true
}

// chromaSize returns the size of the chroma planes of a w×h image
// subsampled as r: each halved or quartered dimension rounded up.
func chromaSize(r image.YCbCrSubsampleRatio, w, h int) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		return (w + 3) / 4, h
	case image.YCbCrSubsampleRatio410:
		return (w + 3) / 4, (h + 1) / 2
	}
	return w, h
}
