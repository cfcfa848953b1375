package jpegdec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIDCTAccuracy checks idct against the exact inverse DCT of T.81
// (A.3.3) on the quantized blocks of random images: libjpeg's islow is
// accurate to within one level, and it level shifts and clamps as T.81
// does.
func TestIDCTAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for n := range 4000 {
		// The block of an 8x8 image of random samples, coarsely
		// quantized (step q); every 4th image flat, so that whole
		// columns and rows of coefficients are zero (libjpeg's
		// shortcuts).
		var px [64]float64
		for i := range px {
			px[i] = float64(r.IntN(256))
			if n%4 == 0 {
				px[i] = px[0]
			}
		}
		q := float64(1 + r.IntN(24))
		var b block
		for i := range b {
			b[i] = int32(math.Round(exactFDCT(&px, i%8, i/8)/q) * q)
		}
		in := b
		idct(&b)
		for y := range 8 {
			for x := range 8 {
				want := exactIDCT(&in, x, y)
				d := math.Abs(float64(b[8*y+x]) - want)
				worst = max(worst, d)
				if d > 1 {
					t.Fatalf("block %d, sample (%d,%d): %d, the exact IDCT gives %.2f", n, x, y, b[8*y+x], want)
				}
			}
		}
	}
	t.Logf("largest difference from the exact IDCT (rounded samples vs real values): %.2f", worst)
}

// exactIDCT is T.81's inverse DCT at (x, y), level shifted and clamped.
func exactIDCT(b *block, x, y int) float64 {
	s := 0.0
	for v := range 8 {
		for u := range 8 {
			cu, cv := 1.0, 1.0
			if u == 0 {
				cu = 1 / math.Sqrt2
			}
			if v == 0 {
				cv = 1 / math.Sqrt2
			}
			s += cu * cv * float64(b[8*v+u]) *
				math.Cos(float64(2*x+1)*float64(u)*math.Pi/16) *
				math.Cos(float64(2*y+1)*float64(v)*math.Pi/16)
		}
	}
	return min(max(s/4+128, 0), 255)
}

// exactFDCT is T.81's forward DCT (A.3.3) of the samples px, level
// shifted, at frequency (u, v).
func exactFDCT(px *[64]float64, u, v int) float64 {
	s := 0.0
	for y := range 8 {
		for x := range 8 {
			s += (px[8*y+x] - 128) *
				math.Cos(float64(2*x+1)*float64(u)*math.Pi/16) *
				math.Cos(float64(2*y+1)*float64(v)*math.Pi/16)
		}
	}
	cu, cv := 1.0, 1.0
	if u == 0 {
		cu = 1 / math.Sqrt2
	}
	if v == 0 {
		cv = 1 / math.Sqrt2
	}
	return cu * cv * s / 4
}

// TestRangeLimit checks the post-IDCT range limit of libjpeg's table.
func TestRangeLimit(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want int32
	}{{-128, 0}, {-129, 0}, {0, 128}, {127, 255}, {128, 255}, {511, 255}, {-512, 0}, {-1, 127}} {
		if got := rangeLimit(c.in); got != c.want {
			t.Errorf("rangeLimit(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
