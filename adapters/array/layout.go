package array

// SwapUnits reverses the byte order of every unit-byte group of b, in
// place (big endian to little endian or back).
func SwapUnits(b []byte, unit int) {
	if unit <= 1 {
		return
	}
	for i := 0; i+unit <= len(b); i += unit {
		u := b[i : i+unit]
		for l, r := 0, unit-1; l < r; l, r = l+1, r-1 {
			u[l], u[r] = u[r], u[l]
		}
	}
}

// cStrides returns the element strides of a C-order array of shape.
func cStrides(shape []int64) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// Untranspose returns the C-order array A of shape a from the C-order
// array B = transpose(A, order), whose shape is b[i] = a[order[i]]. An
// element is size items of src: bytes of a fixed-size type, or 1 for a
// slice of elements (strings).
func Untranspose[T any](src []T, a []int64, order []int, size int) []T {
	b := make([]int64, len(a))
	for i, o := range order {
		b[i] = a[o]
	}
	bs := cStrides(b)
	// The stride, in B, of each axis of A.
	as := make([]int64, len(a))
	for i, o := range order {
		as[o] = bs[i]
	}
	z := int64(size)
	dst := make([]T, len(src))
	ForEachIndex(a, func(n int64, idx []int64) {
		var off int64
		for k, v := range idx {
			off += v * as[k]
		}
		copy(dst[n*z:(n+1)*z], src[off*z:(off+1)*z])
	})
	return dst
}

// FortranToC converts an F-order array of shape to C order.
func FortranToC(src []byte, shape []int64, size int) []byte {
	// F order of shape is C order of the reversed shape, which is
	// transpose(A, reverse axes).
	order := make([]int, len(shape))
	for i := range order {
		order[i] = len(shape) - 1 - i
	}
	return Untranspose(src, shape, order, size)
}

// ForEachIndex calls f for every index of shape in C order, with n the
// running element number. idx is reused between calls.
func ForEachIndex(shape []int64, f func(n int64, idx []int64)) {
	total := Prod(shape)
	idx := make([]int64, len(shape))
	for n := int64(0); n < total; n++ {
		f(n, idx)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
}

// CopyBox copies the box of extent ext at lo in src (C order, shape
// srcShape) to dstLo in dst (C order, shape dstShape). An element is size
// items: bytes of a fixed-size type, or 1 for a slice of elements. Runs
// along the last axis are copied whole.
func CopyBox[T any](dst []T, dstShape, dstLo []int64, src []T, srcShape, lo, ext []int64, size int) {
	nd := len(ext)
	if nd == 0 {
		copy(dst[:size], src[:size])
		return
	}
	for _, e := range ext {
		if e <= 0 {
			return
		}
	}
	ss, ds := cStrides(srcShape), cStrides(dstShape)
	z := int64(size)
	run := ext[nd-1] * z
	ForEachIndex(ext[:nd-1], func(_ int64, idx []int64) {
		so := lo[nd-1] * ss[nd-1]
		do := dstLo[nd-1] * ds[nd-1]
		for k, v := range idx {
			so += (lo[k] + v) * ss[k]
			do += (dstLo[k] + v) * ds[k]
		}
		copy(dst[do*z:do*z+run], src[so*z:so*z+run])
	})
}

// FillBytes returns n elements of size bytes, each the fill value fill
// (zeros when it is nil).
func FillBytes(fill []byte, n int64, size int) []byte {
	out := make([]byte, n*int64(size))
	if len(fill) == size && !allZero(fill) {
		for i := int64(0); i < n; i++ {
			copy(out[i*int64(size):], fill)
		}
	}
	return out
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
