package jpegdec

// block is an 8x8 block of dequantized DCT coefficients in natural
// (row-major) order, and after idct its samples.
type block [blockSize]int32

const blockSize = 8 * 8

// The constants of libjpeg's jidctint.c: 13-bit fixed point, 2 extra
// bits kept between the passes.
const (
	constBits = 13
	pass1Bits = 2

	fix0_298631336 = 2446
	fix0_390180644 = 3196
	fix0_541196100 = 4433
	fix0_765366865 = 6270
	fix0_899976223 = 7373
	fix1_175875602 = 9633
	fix1_501321110 = 12299
	fix1_847759065 = 15137
	fix1_961570560 = 16069
	fix2_053119869 = 16819
	fix2_562915447 = 20995
	fix3_072711026 = 25172
)

// descale is libjpeg's DESCALE: x/2^n rounded, half up.
func descale(x int64, n uint) int64 { return (x + 1<<(n-1)) >> n }

// rangeLimit is libjpeg's post-IDCT range limit (jdmaster.c,
// prepare_range_limit_table) applied to x & 1023: the sample level
// shifted by 128 and clamped to [0, 255], values that wrap past ±512 as
// libjpeg's table has them.
func rangeLimit(x int64) int32 {
	switch v := int32(x & 1023); {
	case v < 128:
		return v + 128
	case v < 512:
		return 255
	case v < 1024-128:
		return 0
	default:
		return v - (1024 - 128)
	}
}

// idct is libjpeg's accurate integer inverse DCT (jidctint.c,
// jpeg_idct_islow, the default of libjpeg and libjpeg-turbo: "djpeg -dct
// int"), on the dequantized coefficients of b, leaving in b the samples,
// level shifted and range limited to [0, 255].
func idct(b *block) {
	var ws [blockSize]int32
	// Pass 1: columns into ws, scaled up by 2^pass1Bits.
	for c := range 8 {
		in := func(r int) int64 { return int64(b[8*r+c]) }
		if b[8+c] == 0 && b[16+c] == 0 && b[24+c] == 0 && b[32+c] == 0 &&
			b[40+c] == 0 && b[48+c] == 0 && b[56+c] == 0 {
			dc := int32(in(0) << pass1Bits)
			for r := range 8 {
				ws[8*r+c] = dc
			}
			continue
		}
		var out [8]int64
		butterfly(&out, in(0), in(1), in(2), in(3), in(4), in(5), in(6), in(7))
		for r, v := range out {
			ws[8*r+c] = int32(descale(v, constBits-pass1Bits))
		}
	}
	// Pass 2: rows of ws into b, scaled down by 2^(pass1Bits+3).
	for r := range 8 {
		w := ws[8*r : 8*r+8]
		if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
			v := rangeLimit(descale(int64(w[0]), pass1Bits+3))
			for c := range 8 {
				b[8*r+c] = v
			}
			continue
		}
		var out [8]int64
		butterfly(&out, int64(w[0]), int64(w[1]), int64(w[2]), int64(w[3]), int64(w[4]), int64(w[5]), int64(w[6]), int64(w[7]))
		for c, v := range out {
			b[8*r+c] = rangeLimit(descale(v, constBits+pass1Bits+3))
		}
	}
}

// butterfly is the one-dimensional transform of jpeg_idct_islow (the
// Loeffler-Ligtenberg-Moschytz algorithm, as libjpeg computes it): out
// holds the eight results scaled by 2^constBits, not yet descaled.
func butterfly(out *[8]int64, x0, x1, x2, x3, x4, x5, x6, x7 int64) {
	// Even part.
	z1 := (x2 + x6) * fix0_541196100
	tmp2 := z1 - x6*fix1_847759065
	tmp3 := z1 + x2*fix0_765366865
	tmp0 := (x0 + x4) << constBits
	tmp1 := (x0 - x4) << constBits
	tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
	tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2

	// Odd part.
	t0, t1, t2, t3 := x7, x5, x3, x1
	z1 = t0 + t3
	z2 := t1 + t2
	z3 := t0 + t2
	z4 := t1 + t3
	z5 := (z3 + z4) * fix1_175875602
	t0 *= fix0_298631336
	t1 *= fix2_053119869
	t2 *= fix3_072711026
	t3 *= fix1_501321110
	z1 *= -fix0_899976223
	z2 *= -fix2_562915447
	z3 *= -fix1_961570560
	z4 *= -fix0_390180644
	z3 += z5
	z4 += z5
	t0 += z1 + z3
	t1 += z2 + z4
	t2 += z2 + z3
	t3 += z1 + z4

	out[0], out[7] = tmp10+t3, tmp10-t3
	out[1], out[6] = tmp11+t2, tmp11-t2
	out[2], out[5] = tmp12+t1, tmp12-t1
	out[3], out[4] = tmp13+t0, tmp13-t0
}
