package arraycodec

// Unshuffle reverses the byte shuffle of numcodecs and Blosc with element
// size es: the input holds byte j of every element, then byte j+1, and so
// on; out[i*es+j] = in[j*n+i] with n = len(src)/es. The len(src)%es tail
// is copied as is. es <= 1 returns a copy.
func Unshuffle(src []byte, es int) []byte {
	dst := make([]byte, len(src))
	unshuffleInto(dst, src, es)
	return dst
}

func unshuffleInto(dst, src []byte, es int) {
	if es <= 1 {
		copy(dst, src)
		return
	}
	n := len(src) / es
	for j := 0; j < es; j++ {
		plane := src[j*n : (j+1)*n]
		for i, b := range plane {
			dst[i*es+j] = b
		}
	}
	copy(dst[n*es:], src[n*es:])
}

// BitUnshuffle reverses Blosc's bit shuffle of elements of ts bytes. With
// n = len(src)/ts elements, when n%8 != 0 the data is stored plain; else
// the first n*ts bytes are 8*ts planes of n/8 bytes, plane 8*j+k holding
// bit k of byte j of every element. The tail is copied.
func BitUnshuffle(src []byte, ts int) []byte {
	dst := make([]byte, len(src))
	bitUnshuffleInto(dst, src, ts)
	return dst
}

func bitUnshuffleInto(dst, src []byte, ts int) {
	if ts < 1 {
		copy(dst, src)
		return
	}
	n := len(src) / ts
	if n%8 != 0 || n == 0 {
		copy(dst, src)
		return
	}
	clear(dst[:n*ts])
	rows := n / 8
	for j := 0; j < ts; j++ {
		for k := 0; k < 8; k++ {
			plane := src[(8*j+k)*rows : (8*j+k+1)*rows]
			for r, b := range plane {
				if b == 0 {
					continue
				}
				base := r * 8
				for bit := 0; bit < 8; bit++ {
					if b>>bit&1 != 0 {
						dst[(base+bit)*ts+j] |= 1 << k
					}
				}
			}
		}
	}
	copy(dst[n*ts:], src[n*ts:])
}
