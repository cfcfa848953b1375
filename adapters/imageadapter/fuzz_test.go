package imageadapter_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// fuzzImage opens data as scheme with small limits and reads it whole:
// any error must be classified, never a panic or a hang.
func fuzzImage(t *testing.T, scheme string, data []byte) {
	o := &vfs.Options{Cache: vfs.NewCache(32 << 20), Limits: vfs.Limits{MaxChunk: 8 << 20, MaxEntries: 64}}
	if err := memroot.For(o.Cache).WriteFile("x", data); err != nil {
		t.Fatal(err)
	}
	check := func(err error) {
		if err == nil {
			return
		}
		if !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) &&
			!errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: unclassified error: %v", scheme, err)
		}
	}
	f, err := vfs.Open(context.Background(), "memory:x|"+scheme+":", o)
	check(err)
	if err == nil {
		_, err = io.Copy(io.Discard, f)
		check(err)
		f.Close()
	}
	if scheme == "tiff" {
		fsys, err := vfs.OpenFS(context.Background(), "memory:x|pipefs.pages:page/", o)
		check(err)
		if err == nil {
			_, err := fs.ReadDir(fsys, ".")
			check(err)
			if g, err := fsys.Open("1"); err == nil {
				_, err = io.Copy(io.Discard, g)
				check(err)
				g.Close()
			}
			fsys.Close()
		}
	}
}

// seedImages adds the test images of scheme, and their prefixes, to f.
func seedImages(f *testing.F, prefix string) {
	names, err := filepath.Glob(filepath.Join("testdata", "images", prefix+"-*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range names {
		if strings.HasSuffix(n, ".rgba") || strings.HasSuffix(n, ".rgba16") || strings.HasSuffix(n, ".cmyk") || strings.HasSuffix(n, ".md") {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
}

func FuzzPNG(f *testing.F) {
	seedImages(f, "png")
	f.Add(bomb(100000, 100000))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImage(t, "png", b) })
}

func FuzzJPEG(f *testing.F) {
	seedImages(f, "jpeg")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImage(t, "jpeg", b) })
}

func FuzzBMP(f *testing.F) {
	seedImages(f, "bmp")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImage(t, "bmp", b) })
}

func FuzzTIFF(f *testing.F) {
	seedImages(f, "tiff")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImage(t, "tiff", b) })
}

func FuzzWebP(f *testing.F) {
	seedImages(f, "webp")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImage(t, "webp", b) })
}

func FuzzAVIF(f *testing.F) {
	seedImages(f, "avif")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImage(t, "avif", b) })
}
