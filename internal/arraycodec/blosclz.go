package arraycodec

import "github.com/pipefs/pipefs/vfs/driver"

// BloscLZ decodes one blosclz stream (c-blosc 1.x) that must decode to
// exactly size bytes. It follows section 3.1 of the project's array guide:
// a byte-oriented LZ77 whose distances count back from the output end.
func BloscLZ(src []byte, size int) ([]byte, error) {
	if len(src) == 0 {
		return nil, driver.Corruptf("blosclz: empty stream")
	}
	out := make([]byte, 0, size)
	ip := 0
	ctrl := int(src[ip] & 31) // the encoder sets bit 5 of the first byte
	ip++
	for {
		if ctrl < 32 {
			n := ctrl + 1
			if ip+n > len(src) {
				return nil, driver.Corruptf("blosclz: literal run past the input")
			}
			if len(out)+n > size {
				return nil, driver.Corruptf("blosclz: output exceeds %d bytes", size)
			}
			out = append(out, src[ip:ip+n]...)
			ip += n
		} else {
			l := ctrl >> 5
			hi := ctrl & 31
			n := l + 2
			if l == 7 {
				sum := 0
				for {
					if ip >= len(src) {
						return nil, driver.Corruptf("blosclz: match length past the input")
					}
					c := int(src[ip])
					ip++
					sum += c
					if sum > size {
						return nil, driver.Corruptf("blosclz: match longer than the output")
					}
					if c != 255 {
						break
					}
				}
				n = 9 + sum
			}
			if ip >= len(src) {
				return nil, driver.Corruptf("blosclz: match distance past the input")
			}
			lo := int(src[ip])
			ip++
			var dist int
			if lo == 255 && hi == 31 {
				if ip+2 > len(src) {
					return nil, driver.Corruptf("blosclz: far distance past the input")
				}
				dist = int(src[ip])<<8 | int(src[ip+1]) + 8192
				ip += 2
			} else {
				dist = hi<<8 + lo + 1
			}
			if dist > len(out) {
				return nil, driver.Corruptf("blosclz: distance %d before the start", dist)
			}
			if len(out)+n > size {
				return nil, driver.Corruptf("blosclz: output exceeds %d bytes", size)
			}
			start := len(out) - dist
			for i := 0; i < n; i++ {
				out = append(out, out[start+i])
			}
		}
		if ip >= len(src) {
			break
		}
		ctrl = int(src[ip])
		ip++
	}
	if len(out) != size {
		return nil, driver.Corruptf("blosclz: decoded %d bytes, want %d", len(out), size)
	}
	return out, nil
}
