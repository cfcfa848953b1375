package aec

import "github.com/pipefs/pipefs/vfs/driver"

// Options of the szip option mask (szlib.h) that change decoding.
const (
	SzipMSB = 16 // samples most significant byte first (SZ_MSB_OPTION_MASK)
	SzipNN  = 32 // nearest-neighbour preprocessing (SZ_NN_OPTION_MASK)
)

// SzipParams are the parameters of an szip stream (libaec's SZ_com_t).
type SzipParams struct {
	// Options is the option mask: SzipMSB and SzipNN matter, the other
	// bits (raw, entropy coding, allow k13, chip, LSB) do not change
	// decoding.
	Options int
	// BitsPerPixel is 1 to 24, 32 or 64.
	BitsPerPixel int
	// PixelsPerBlock is 8, 16 or 32 (szip also allows even sizes below 8
	// that libaec refuses).
	PixelsPerBlock int
	// PixelsPerScanline is the pixels of a scanline, at most 4096 blocks.
	PixelsPerScanline int
}

// Szip decodes src, coded as SZ_BufftoBuffCompress codes it, into size
// bytes.
func Szip(src []byte, p SzipParams, size int) ([]byte, error) {
	if p.PixelsPerBlock <= 0 || p.PixelsPerScanline <= 0 {
		return nil, driver.Corruptf("szip: %d pixels per block, %d per scanline", p.PixelsPerBlock, p.PixelsPerScanline)
	}
	if p.BitsPerPixel < 1 || p.BitsPerPixel > 64 || (p.BitsPerPixel > 24 && p.BitsPerPixel != 32 && p.BitsPerPixel != 64) {
		return nil, driver.Corruptf("szip: %d bits per pixel", p.BitsPerPixel)
	}
	rsi := (p.PixelsPerScanline + p.PixelsPerBlock - 1) / p.PixelsPerBlock
	ap := Params{
		BitsPerSample: p.BitsPerPixel,
		BlockSize:     p.PixelsPerBlock,
		RSI:           rsi,
		MSB:           p.Options&SzipMSB != 0,
		Preprocess:    p.Options&SzipNN != 0,
	}
	deinterleave := p.BitsPerPixel == 32 || p.BitsPerPixel == 64
	if deinterleave {
		ap.BitsPerSample = 8
	}
	if err := ap.check(); err != nil {
		return nil, err
	}
	pad := p.PixelsPerScanline%p.PixelsPerBlock != 0
	if !pad && !deinterleave {
		return Decode(src, ap, size)
	}
	pixel := SampleBytes(ap.BitsPerSample)
	bufSize := size
	if pad {
		lines := (size/pixel + p.PixelsPerScanline - 1) / p.PixelsPerScanline
		line := rsi * p.PixelsPerBlock * pixel
		// at most BlockSize times size, when scanlines are 1 pixel
		bufSize = lines * line
	}
	buf, err := Decode(src, ap, bufSize)
	if err != nil {
		return nil, err
	}
	if pad {
		buf = removePadding(buf, p.PixelsPerScanline*pixel, (rsi*p.PixelsPerBlock-p.PixelsPerScanline)*pixel)
	}
	if len(buf) < size {
		return nil, driver.Corruptf("szip: %d bytes of data, want %d", len(buf), size)
	}
	buf = buf[:size]
	if deinterleave {
		buf = deinterleaveBytes(buf, p.BitsPerPixel/8)
	}
	return buf, nil
}

// removePadding keeps the first line bytes of every line+padding bytes
// of buf, in place.
func removePadding(buf []byte, line, padding int) []byte {
	j := 0
	for i := 0; i < len(buf); i += line + padding {
		j += copy(buf[j:], buf[i:min(i+line, len(buf))])
	}
	return buf[:j]
}

// deinterleaveBytes undoes libaec's interleave_buffer: src holds byte k
// of every word, for each k in turn.
func deinterleaveBytes(src []byte, word int) []byte {
	n := len(src) / word
	out := make([]byte, len(src))
	for i := 0; i < n; i++ {
		for k := 0; k < word; k++ {
			out[i*word+k] = src[k*n+i]
		}
	}
	copy(out[n*word:], src[n*word:])
	return out
}
