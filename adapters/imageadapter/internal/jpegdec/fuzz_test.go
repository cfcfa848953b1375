package jpegdec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// maxFuzzPixels bounds the images the fuzz target decodes: the decoder
// allocates what the frame header states, which its callers bound.
const maxFuzzPixels = 1 << 20

// FuzzDecode decodes arbitrary bytes: an error or an image of the size
// DecodeConfig states, never a panic.
func FuzzDecode(f *testing.F) {
	for _, glob := range []string{"../../testdata/images/*.jpg", "../../testdata/photos/jpeg-4*.jpg"} {
		names, err := filepath.Glob(glob)
		if err != nil {
			f.Fatal(err)
		}
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height > maxFuzzPixels {
			return
		}
		m, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		if b := m.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
			t.Fatalf("decoded %v, DecodeConfig says %dx%d", b, cfg.Width, cfg.Height)
		}
	})
}
