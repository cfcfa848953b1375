package imageadapter_test

import (
	"crypto/sha256"
	"encoding/hex"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gen2brain/avif"

	"github.com/pipefs/pipefs/vfs"
)

// photoCases are the images of testdata/photos (scripts/photos.sh): a
// photograph and its re-encodings, against the reference decoders'
// default output. tol is the largest difference allowed per sample.
var photoCases = []struct {
	file     string
	scheme   string
	channels int
	tol      int
}{
	{"jpeg-420-crop.jpg", "jpeg", 3, 0},
	{"jpeg-420-prog.jpg", "jpeg", 3, 0},
	{"jpeg-420-tiny.jpg", "jpeg", 3, 0},
	{"jpeg-422.jpg", "jpeg", 3, 0},
	{"jpeg-440.jpg", "jpeg", 3, 0},
	{"jpeg-411.jpg", "jpeg", 3, 0},
	{"jpeg-444.jpg", "jpeg", 3, 0},
	{"jpeg-gray.jpg", "jpeg", 1, 0},
	{"webp-lossy.webp", "webp", 3, 0},
	{"webp-lossy-alpha.webp", "webp", 4, 0},
	// avifdec's default upsamples 4:2:0 and 4:2:2 chroma with libyuv's
	// bilinear filter; the WebAssembly libavif gives only RGB, upsampled
	// as "avifdec -u nearest" does (TestAVIFNearest), and differs from
	// the default by this much on the photo.
	{"avif-420.avif", "avif", 3, 15},
	{"avif-422.avif", "avif", 3, 8},
	{"avif-444.avif", "avif", 3, 0},
}

// TestAVIFNearest compares the AVIF photos with "avifdec -u nearest",
// which the WebAssembly libavif that decodes them matches exactly.
func TestAVIFNearest(t *testing.T) {
	if avif.Dynamic() == nil {
		t.Skip("github.com/gen2brain/avif decodes with the system's libavif.so, whose chroma upsampling is its own")
	}
	for _, f := range []string{"avif-420.avif", "avif-422.avif", "avif-444.avif"} {
		got := readPixels(t, "file:"+photoPath(t, f)+"|avif:")
		want := pngSamples(t, photoPath(t, f+".nearest.png"), 3)
		if worst, at, _ := compareSamples(got, want); worst != 0 {
			t.Errorf("%s: sample %d differs by %d from avifdec -u nearest", f, at, worst)
		}
	}
}

// TestPhotos compares the pixels of each photo with those of its
// reference decoder (djpeg, dwebp, avifdec with their defaults), sample
// by sample.
func TestPhotos(t *testing.T) {
	for _, c := range photoCases {
		t.Run(c.file, func(t *testing.T) {
			got := readPixels(t, "file:"+photoPath(t, c.file)+"|"+c.scheme+":")
			want := pngSamples(t, photoPath(t, c.file+".png"), c.channels)
			if len(got) != len(want) {
				t.Fatalf("%d samples, the reference has %d", len(got), len(want))
			}
			worst, at, psnr := compareSamples(got, want)
			t.Logf("largest difference %d, PSNR %.1f dB", worst, psnr)
			if worst > c.tol {
				t.Errorf("sample %d differs by %d from the reference, more than %d", at, worst, c.tol)
			}
		})
	}
}

// TestGraceHopper decodes matplotlib's grace_hopper.jpg, a photograph
// written by a camera's software, to exactly the bytes djpeg and Pillow
// give (their SHA-256 is kept beside it).
func TestGraceHopper(t *testing.T) {
	got := readPixels(t, "file:"+photoPath(t, "grace_hopper.jpg")+"|jpeg:")
	want, err := os.ReadFile(photoPath(t, "grace_hopper.jpg.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(got)
	if hex.EncodeToString(sum[:]) != strings.TrimSpace(string(want)) {
		t.Errorf("the %d bytes of pixels have SHA-256 %x, djpeg's have %s", len(got), sum, want)
	}
}

func photoPath(t testing.TB, name string) string {
	t.Helper()
	return imagePath(t, "../photos/"+name)
}

// readPixels returns the bytes of the file that pipeline p yields.
func readPixels(t testing.TB, p string) []byte {
	t.Helper()
	f, err := vfs.Open(t.Context(), p, &vfs.Options{Cache: vfs.NewCache(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pngSamples returns the 8-bit samples of the PNG at p, ch to a pixel:
// gray, RGB or RGBA (straight alpha).
func pngSamples(t testing.TB, p string, ch int) []byte {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if ch == 1 {
				out = append(out, color.GrayModel.Convert(m.At(x, y)).(color.Gray).Y)
				continue
			}
			n := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
			out = append(out, []byte{n.R, n.G, n.B, n.A}[:ch]...)
		}
	}
	return out
}

// compareSamples returns the largest difference between got and want,
// the index of its first sample, and the PSNR in dB (+Inf when equal).
func compareSamples(got, want []byte) (worst, at int, psnr float64) {
	var se float64
	for i := range got {
		d := int(got[i]) - int(want[i])
		if d < 0 {
			d = -d
		}
		if d > worst {
			worst, at = d, i
		}
		se += float64(d * d)
	}
	return worst, at, 10 * math.Log10(255*255*float64(len(got))/se)
}
