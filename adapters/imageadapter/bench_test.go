package imageadapter_test

import (
	"io"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// BenchmarkDecode decodes photos whole, each time with an empty cache:
// bytes are those of the pixels.
func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct{ name, file, scheme string }{
		{"jpeg-420-512x600", "grace_hopper.jpg", "jpeg"},
		{"jpeg-422-161x123", "jpeg-422.jpg", "jpeg"},
		{"webp-420-161x123", "webp-lossy.webp", "webp"},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := "file:" + photoPath(b, c.file) + "|" + c.scheme + ":"
			b.SetBytes(int64(len(readPixels(b, p))))
			for b.Loop() {
				f, err := vfs.Open(b.Context(), p, &vfs.Options{Cache: vfs.NewCache(0)})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, f); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
