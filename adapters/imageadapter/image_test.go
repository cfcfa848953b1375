package imageadapter_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/adapters/imageadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/roots/memroot"
)

// imageCase is one image of testdata/images and what it decodes to.
type imageCase struct {
	file     string
	scheme   string
	channels int64
	dtype    string
	tol      int    // largest difference allowed per sample from the reference
	ref      string // reference file; "" means file + ".rgba" (".rgba16" for uint16)
	pipeline string // "" means file:<abs>|<scheme>:
	// premultiplied: the decoder gives 8-bit premultiplied colour, so
	// colour is compared within tol + 255/(2 alpha), and not at all
	// where alpha is 0.
	premultiplied bool
}

var imageCases = []imageCase{
	{file: "png-gray1.png", scheme: "png", channels: 1},
	{file: "png-gray8.png", scheme: "png", channels: 1},
	{file: "png-gray16.png", scheme: "png", channels: 1, dtype: "uint16"},
	{file: "png-graya8.png", scheme: "png", channels: 2},
	{file: "png-palette.png", scheme: "png", channels: 3},
	{file: "png-palette-trns.png", scheme: "png", channels: 4},
	{file: "png-rgb8.png", scheme: "png", channels: 3},
	{file: "png-rgb8-trns.png", scheme: "png", channels: 4},
	{file: "png-gray8-trns.png", scheme: "png", channels: 2},
	{file: "png-rgb8-interlaced.png", scheme: "png", channels: 3},
	{file: "png-rgba8.png", scheme: "png", channels: 4},
	{file: "png-rgb16.png", scheme: "png", channels: 3, dtype: "uint16"},
	{file: "png-rgba16.png", scheme: "png", channels: 4, dtype: "uint16"},

	{file: "jpeg-gray.jpg", scheme: "jpeg", channels: 1},
	{file: "jpeg-rgb444.jpg", scheme: "jpeg", channels: 3},
	{file: "jpeg-rgb420.jpg", scheme: "jpeg", channels: 3},
	{file: "jpeg-progressive.jpg", scheme: "jpeg", channels: 3},
	{file: "jpeg-cmyk.jpg", scheme: "jpeg", channels: 4, tol: 1, ref: "jpeg-cmyk.jpg.cmyk"},

	{file: "bmp-1.bmp", scheme: "bmp", channels: 3},
	{file: "bmp-4.bmp", scheme: "bmp", channels: 3},
	{file: "bmp-8.bmp", scheme: "bmp", channels: 3},
	{file: "bmp-24.bmp", scheme: "bmp", channels: 3},
	{file: "bmp-32.bmp", scheme: "bmp", channels: 4},

	{file: "tiff-gray8.tif", scheme: "tiff", channels: 1},
	{file: "tiff-bilevel.tif", scheme: "tiff", channels: 1},
	{file: "tiff-gray16-deflate.tif", scheme: "tiff", channels: 1, dtype: "uint16"},
	{file: "tiff-rgb8-lzw.tif", scheme: "tiff", channels: 3},
	{file: "tiff-rgb8-packbits.tif", scheme: "tiff", channels: 3},
	{file: "tiff-rgb8-tiled.tif", scheme: "tiff", channels: 3},
	{file: "tiff-rgb8-strips.tif", scheme: "tiff", channels: 3},
	{file: "tiff-rgba8-deflate.tif", scheme: "tiff", channels: 4},
	{file: "tiff-rgb16-lzw.tif", scheme: "tiff", channels: 3, dtype: "uint16"},
	{file: "tiff-rgba16.tif", scheme: "tiff", channels: 4, dtype: "uint16"},
	{file: "tiff-palette.tif", scheme: "tiff", channels: 3},
	{file: "tiff-multipage.tif", scheme: "tiff", channels: 3, ref: "tiff-multipage.tif.0.rgba"},
	{file: "tiff-multipage.tif", scheme: "tiff", channels: 3, ref: "tiff-multipage.tif.0.rgba", pipeline: "|pipefs.pages:page/0"},
	{file: "tiff-multipage.tif", scheme: "tiff", channels: 1, ref: "tiff-multipage.tif.1.rgba", pipeline: "|pipefs.pages:page/1"},
	{file: "tiff-multipage.tif", scheme: "tiff", channels: 3, ref: "tiff-multipage.tif.2.rgba", pipeline: "|pipefs.pages:page/2"},

	{file: "webp-lossless.webp", scheme: "webp", channels: 3},
	{file: "webp-lossless-alpha.webp", scheme: "webp", channels: 4},
	{file: "webp-lossy.webp", scheme: "webp", channels: 3},
	{file: "webp-lossy-alpha.webp", scheme: "webp", channels: 4},

	{file: "png-icc.png", scheme: "png", channels: 3},
	{file: "jpeg-icc.jpg", scheme: "jpeg", channels: 3},
	{file: "tiff-icc.tif", scheme: "tiff", channels: 3},
	{file: "tiff-orientation.tif", scheme: "tiff", channels: 1},
	{file: "jpeg-orientation.jpg", scheme: "jpeg", channels: 1},
	{file: "webp-orientation.webp", scheme: "webp", channels: 3},

	{file: "avif-rgb444.avif", scheme: "avif", channels: 3, tol: 2},
	{file: "avif-rgb420.avif", scheme: "avif", channels: 3, tol: 2},
	{file: "avif-rgba.avif", scheme: "avif", channels: 4, tol: 2, premultiplied: true},
	{file: "avif-gray.avif", scheme: "avif", channels: 1, tol: 2},
	{file: "avif-10bit.avif", scheme: "avif", channels: 3, tol: 2},
}

// imagePath returns the absolute path of a file of testdata/images.
func imagePath(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "images", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (c imageCase) url(t testing.TB) string {
	if c.pipeline != "" {
		return "file:" + imagePath(t, c.file) + c.pipeline
	}
	return "file:" + imagePath(t, c.file) + "|" + c.scheme + ":"
}

// openImage opens p as a file and returns its bytes and its *Image.
func openImage(t testing.TB, p string, o *vfs.Options) ([]byte, *imageadapter.Image) {
	t.Helper()
	f, err := vfs.Open(context.Background(), p, o)
	if err != nil {
		t.Fatalf("OpenFile(%s): %v", p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	im, ok := info.Sys().(*vfs.Origin).Header.(*imageadapter.Image)
	if !ok {
		t.Fatalf("%s: Sys().Header is a %T, want *Image", p, info.Sys().(*vfs.Origin).Header)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("reading %s: %v", p, err)
	}
	if int64(len(data)) != info.Size() {
		t.Fatalf("%s: read %d bytes, Stat says %d", p, len(data), info.Size())
	}
	return data, im
}

// TestReference compares every test image with its reference decoder's
// pixels: exactly for lossless formats, within tol for lossy ones.
func TestReference(t *testing.T) {
	for _, c := range imageCases {
		name := c.file + c.pipeline
		t.Run(name, func(t *testing.T) {
			data, im := openImage(t, c.url(t), nil)
			dtype := c.dtype
			if dtype == "" {
				dtype = "uint8"
			}
			if im.Format != c.scheme || im.DType != dtype || im.Shape[2] != c.channels {
				t.Fatalf("Image = %s %s %v, want %s %s channels %d", im.Format, im.DType, im.Shape, c.scheme, dtype, c.channels)
			}
			ref := c.ref
			if ref == "" {
				ref = c.file + ".rgba"
				if dtype == "uint16" {
					ref += "16"
				}
			}
			want, err := os.ReadFile(imagePath(t, ref))
			if err != nil {
				t.Fatal(err)
			}
			size := 1
			if dtype == "uint16" {
				size = 2
			}
			// The reference has four samples a pixel (RGBA or CMYK);
			// these are the ones each channel count keeps.
			keep := map[int64][]int{1: {0}, 2: {0, 3}, 3: {0, 1, 2}, 4: {0, 1, 2, 3}}[c.channels]
			pixels := int(im.Shape[0] * im.Shape[1])
			if len(want) != pixels*4*size {
				t.Fatalf("reference %s has %d bytes for %v", ref, len(want), im.Shape)
			}
			maxDiff, at := 0, -1
			for p := range pixels {
				for i, k := range keep {
					g := sample(data, (p*len(keep)+i)*size, size)
					w := sample(want, (p*4+k)*size, size)
					d := abs(g - w)
					if c.premultiplied && k < 3 {
						// Colour recovered from 8-bit premultiplied
						// samples is off by up to 255/(2a) more.
						a := sample(want, (p*4+3)*size, size)
						if a == 0 {
							continue
						}
						d = max(d-(255+2*a-1)/(2*a), 0)
					}
					if d > maxDiff {
						maxDiff, at = d, p
					}
				}
			}
			if maxDiff > c.tol {
				t.Errorf("pixel %d (row %d, column %d) differs by %d from the reference, more than %d",
					at, at/int(im.Shape[1]), at%int(im.Shape[1]), maxDiff, c.tol)
			}
			t.Logf("%s: %v %s, largest difference %d", name, im.Shape, im.DType, maxDiff)
		})
	}
}

func sample(b []byte, off, size int) int {
	if size == 2 {
		return int(b[off]) | int(b[off+1])<<8
	}
	return int(b[off])
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestColourInfo checks what Sys says the files state.
func TestColourInfo(t *testing.T) {
	for _, tc := range []struct {
		file, scheme string
		check        func(im *imageadapter.Image) string
	}{
		{"png-palette-trns.png", "png", func(im *imageadapter.Image) string {
			if im.ColorModel != "palette" || im.PaletteSize == 0 || !im.Transparency || im.Channels != "RGBA" {
				return "want a palette with transparency, as RGBA"
			}
			return ""
		}},
		{"png-rgb16.png", "png", func(im *imageadapter.Image) string {
			if im.BitDepth != 16 || im.ColorModel != "RGB" {
				return "want 16-bit RGB"
			}
			return ""
		}},
		{"jpeg-progressive.jpg", "jpeg", func(im *imageadapter.Image) string {
			if im.Compression != "progressive" || im.ColorModel != "YCbCr" {
				return "want progressive YCbCr"
			}
			return ""
		}},
		{"jpeg-cmyk.jpg", "jpeg", func(im *imageadapter.Image) string {
			if im.Channels != "CMYK" {
				return "want CMYK channels"
			}
			return ""
		}},
		{"bmp-4.bmp", "bmp", func(im *imageadapter.Image) string {
			if im.BitDepth != 4 || im.PaletteSize != 16 || im.ColorModel != "palette" {
				return "want a 4-bit palette of 16"
			}
			return ""
		}},
		{"tiff-multipage.tif", "tiff", func(im *imageadapter.Image) string {
			if im.Pages != 3 || im.Page != 0 || im.Compression != "lzw" {
				return "want page 0 of 3, lzw"
			}
			return ""
		}},
		{"webp-lossy-alpha.webp", "webp", func(im *imageadapter.Image) string {
			if im.Compression != "lossy" || !im.Transparency {
				return "want lossy with alpha"
			}
			return ""
		}},
		{"tiff-orientation.tif", "tiff", orientation6},
		{"png-icc.png", "png", hasICC},
		{"jpeg-icc.jpg", "jpeg", hasICC},
		{"tiff-icc.tif", "tiff", hasICC},
		{"png-rgb8.png", "png", func(im *imageadapter.Image) string {
			if im.ICC || im.Orientation != 0 {
				return "want no ICC profile and no orientation"
			}
			return ""
		}},
		{"jpeg-orientation.jpg", "jpeg", orientation6},
		{"webp-orientation.webp", "webp", orientation6},
		{"avif-rgba.avif", "avif", func(im *imageadapter.Image) string {
			if !im.Transparency || im.BitDepth != 8 {
				return "want 8-bit with alpha"
			}
			return ""
		}},
	} {
		_, im := openImage(t, "file:"+imagePath(t, tc.file)+"|"+tc.scheme+":", nil)
		if msg := tc.check(im); msg != "" {
			t.Errorf("%s: %+v: %s", tc.file, *im, msg)
		}
	}
}

// orientation6 checks Orientation 6, which the orientation test images
// state.
func orientation6(im *imageadapter.Image) string {
	if im.Orientation != 6 {
		return "want orientation 6"
	}
	return ""
}

// hasICC checks that an ICC profile is reported.
func hasICC(im *imageadapter.Image) string {
	if !im.ICC {
		return "want an ICC profile"
	}
	return ""
}

// TestArrayNode reads an image through its array node.
func TestArrayNode(t *testing.T) {
	p := "file:" + imagePath(t, "png-rgba16.png") + "|png:"
	data, im := openImage(t, p, nil)
	f, err := vfs.Open(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	n := array.NodeOf(info)
	if n == nil || !n.IsArray || n.Format != "png" {
		t.Fatalf("NodeOf = %+v, want a png array", n)
	}
	a := n.Array
	if !slices.Equal(a.Shape, []int64{24, 32, 4}) || a.DType.Name != "uint16" {
		t.Fatalf("array %v %s, want [24 32 4] uint16", a.Shape, a.DType.Name)
	}
	all, err := a.ReadAll(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(all, data) {
		t.Errorf("ReadAll differs from the file's bytes")
	}
	// A box: rows 3-5, columns 10-12, channel 1.
	box, err := a.ReadBox(context.Background(), []int64{3, 10, 1}, []int64{5, 12, 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for y := 3; y < 5; y++ {
		for x := 10; x < 12; x++ {
			o := ((y*32+x)*4 + 1) * 2
			want = append(want, data[o:o+2]...)
		}
	}
	if !slices.Equal(box, want) {
		t.Errorf("ReadBox = %v, want %v", box, want)
	}
	_ = im
}

// TestDetect checks that each format's signature is detected, so that
// file:x.png opens as file:x.png|png:.
func TestDetect(t *testing.T) {
	for _, c := range imageCases {
		if c.pipeline != "" {
			continue
		}
		p := "file:" + imagePath(t, c.file)
		blob := driver.BytesBlob(mustRead(t, c.file), nil)
		u, err := vfs.DefaultRegistry.Detect(context.Background(), blob)
		if err != nil || u.String() != c.scheme+":" {
			t.Errorf("Detect(%s) = %v, %v; want %s:", c.file, u, err, c.scheme)
			continue
		}
		// The detected pipeline opens as the image.
		pp, err := vfs.Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		want := p + "|" + c.scheme + ":"
		if got := pp.Append(u).String(); got != want {
			t.Errorf("resolved %s, want %s", got, want)
		}
	}
}

// TestNotFormat checks the error for input of another format.
func TestNotFormat(t *testing.T) {
	for _, tc := range []struct{ file, scheme, want string }{
		{"jpeg-gray.jpg", "png", "not a PNG image (no PNG signature at offset 0): the data looks like jpeg; try |jpeg:"},
		{"png-gray8.png", "webp", "not a WebP image"},
		{"png-gray8.png", "tiff", "not a TIFF image"},
		{"png-gray8.png", "bmp", "not a BMP image"},
		{"png-gray8.png", "jpeg", "not a JPEG image"},
		{"png-gray8.png", "avif", "not an AVIF image (no \"ftyp\" box of brand avif, avis or mif1 at offset 0): the data looks like png; try |png:"},
	} {
		_, err := vfs.Open(context.Background(), "file:"+imagePath(t, tc.file)+"|"+tc.scheme+":", nil)
		if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s as %s: %v, want ErrCorrupt with %q", tc.file, tc.scheme, err, tc.want)
		}
	}
}

// bomb returns a PNG whose IHDR declares w x h RGBA pixels, with no data.
func bomb(w, h uint32) []byte {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = binary.BigEndian.AppendUint32(b, w)
	b = binary.BigEndian.AppendUint32(b, h)
	b = append(b, 8, 6, 0, 0, 0, 0, 0, 0, 0) // depth, type, methods, CRC (unchecked)
	b = append(b, 0, 0, 0, 0, 'I', 'D', 'A', 'T')
	return b
}

// TestLimits opens a tiny PNG that declares 100000x100000 pixels: the
// open fails with ErrLimit before anything is allocated for them.
func TestLimits(t *testing.T) {
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	putMemory(t, o, "bomb.png", bomb(100000, 100000))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := vfs.Open(context.Background(), "memory:bomb.png|png:", o)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), "Limits.MaxChunk") {
		t.Fatalf("bomb: %v, want ErrLimit naming Limits.MaxChunk", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 16<<20 {
		t.Errorf("opening the bomb allocated %d bytes", d)
	}
	// A lower MaxChunk refuses a small image, a higher one admits it.
	o.Limits.MaxChunk = 1000
	putMemory(t, o, "a.png", mustRead(t, "png-rgba8.png"))
	if _, err := vfs.Open(context.Background(), "memory:a.png|png:", o); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("32x24 RGBA under MaxChunk 1000: %v, want ErrLimit", err)
	}
	o.Limits.MaxChunk = 1 << 20
	if _, err := vfs.Open(context.Background(), "memory:a.png|png:", o); err != nil {
		t.Errorf("32x24 RGBA under MaxChunk 1 MiB: %v", err)
	}
	o.Limits.MaxFileSize = 100
	if _, err := vfs.Open(context.Background(), "memory:a.png|png:", o); !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), "MaxFileSize") {
		t.Errorf("32x24 RGBA under MaxFileSize 100: %v, want ErrLimit", err)
	}
}

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(imagePath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// putMemory stores b under key in the memory root of o's cache.
func putMemory(t testing.TB, o *vfs.Options, key string, b []byte) {
	t.Helper()
	if err := memroot.For(o.Cache).WriteFile(key, b); err != nil {
		t.Fatal(err)
	}
}

// TestPages lists the pages of a multi-page TIFF.
func TestPages(t *testing.T) {
	base := "file:" + imagePath(t, "tiff-multipage.tif")
	fsys, err := vfs.OpenFS(context.Background(), base+"|pipefs.pages:page/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %d", e.Name(), info.Size()))
	}
	if want := []string{"0 2304", "1 192", "2 144"}; !slices.Equal(got, want) {
		t.Errorf("pages = %q, want %q", got, want)
	}
	root, err := vfs.OpenFS(context.Background(), base+"|pipefs.pages:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if ents, err := fs.ReadDir(root, "."); err != nil || len(ents) != 1 || ents[0].Name() != "page" || !ents[0].IsDir() {
		t.Errorf("ReadDir(.) = %v, %v; want page/", ents, err)
	}
	if _, err := vfs.Open(context.Background(), base+"|pipefs.pages:page/3", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("page/3: %v, want ErrNotExist", err)
	}
	if _, err := vfs.Open(context.Background(), base+"|pipefs.pages:page/01", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("page/01: %v, want ErrNotExist", err)
	}
}

// TestPageNoder checks that the Sys of a page, reached by fs.Stat in the
// pages tree and by a pipeline naming the page, is an array.Noder whose
// array holds the page's pixels.
func TestPageNoder(t *testing.T) {
	base := "file:" + imagePath(t, "tiff-multipage.tif")
	fsys, err := vfs.OpenFS(context.Background(), base+"|pipefs.pages:page/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	info, err := fs.Stat(fsys, "2")
	if err != nil {
		t.Fatal(err)
	}
	f, err := vfs.Open(context.Background(), base+"|pipefs.pages:page/2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info2, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range []fs.FileInfo{info, info2} {
		sys := info.Sys()
		if o, ok := sys.(*vfs.Origin); ok {
			sys = o.Header
		}
		noder, ok := sys.(array.Noder)
		if !ok {
			t.Fatalf("Sys of page 2 is a %T, not an array.Noder", sys)
		}
		im := sys.(*imageadapter.Image)
		n := noder.ArrayNode()
		if im.Page != 2 || n == nil || n.Array == nil || !slices.Equal(n.Array.Shape, im.Shape) || array.NodeOf(info) != n {
			t.Fatalf("page 2: Image page %d shape %v, node %+v", im.Page, im.Shape, n)
		}
		got, err := n.Array.ReadAll(context.Background(), 0)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("page 2's array: %v, equal to the file's bytes %v", err, slices.Equal(got, want))
		}
	}
}

// TestCache checks that a second open of the same file does not decode
// again: its pixels come from the cache.
func TestCache(t *testing.T) {
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	p := "file:" + imagePath(t, "png-rgb8.png") + "|png:"
	first, _ := openImage(t, p, o)
	if o.Cache.Len() != 1 || o.Cache.Size() != int64(len(first)) {
		t.Fatalf("cache holds %d entries of %d bytes, want 1 of %d", o.Cache.Len(), o.Cache.Size(), len(first))
	}
	second, _ := openImage(t, p, o)
	if !slices.Equal(first, second) || o.Cache.Len() != 1 {
		t.Errorf("second open: equal %v, %d entries", slices.Equal(first, second), o.Cache.Len())
	}
}

// readMemory opens "memory:x" followed by pipeline with x holding b, and
// reads it whole.
func readMemory(b []byte, pipeline string) ([]byte, error) {
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	if err := putMemoryErr(o, "x", b); err != nil {
		return nil, err
	}
	f, err := vfs.Open(context.Background(), "memory:x"+pipeline, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// TestTruncated cuts every test image at many lengths: each cut file must
// fail as corrupt, or decode to exactly the pixels of the whole file (a
// cut in trailing data the decoder does not need), never to other pixels.
func TestTruncated(t *testing.T) {
	for _, c := range imageCases {
		pipeline := c.pipeline
		if pipeline == "" {
			pipeline = "|" + c.scheme + ":"
		}
		b := mustRead(t, c.file)
		full, err := readMemory(b, pipeline)
		if err != nil {
			t.Fatalf("%s%s: %v", c.file, pipeline, err)
		}
		cuts := []int{0, 1, 8, 12, 16, 20, 32, 64, 100, 200, 300, len(b) - 1, len(b) - 2, len(b) - 10, len(b) - 100}
		for k := 1; k < 16; k++ {
			cuts = append(cuts, len(b)*k/16)
		}
		for _, cut := range cuts {
			if cut < 0 || cut >= len(b) {
				continue
			}
			got, err := readMemory(b[:cut], pipeline)
			switch {
			case err == nil && !slices.Equal(got, full):
				t.Errorf("%s%s cut to %d of %d bytes: decodes to other pixels without an error", c.file, pipeline, cut, len(b))
			case err != nil && !errors.Is(err, driver.ErrCorrupt):
				t.Errorf("%s%s cut to %d of %d bytes: %v, want ErrCorrupt", c.file, pipeline, cut, len(b), err)
			}
		}
	}
}

// TestContext checks that a cancelled context is reported as such.
func TestContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f, err := vfs.Open(ctx, "file:"+imagePath(t, "png-rgb8.png")+"|png:", &vfs.Options{Cache: vfs.NewCache(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cancel()
	if _, err := io.ReadAll(f); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v, want context.Canceled", err)
	}
}

// TestConcurrentDecode decodes every image at once, twice, each open
// with a cache of its own, and compares with one decode.
func TestConcurrentDecode(t *testing.T) {
	want := map[string][]byte{}
	for _, c := range imageCases {
		want[c.url(t)], _ = openImage(t, c.url(t), &vfs.Options{Cache: vfs.NewCache(0)})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(imageCases))
	for range 2 {
		for _, c := range imageCases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f, err := vfs.Open(context.Background(), c.url(t), &vfs.Options{Cache: vfs.NewCache(0)})
				if err != nil {
					errs <- err
					return
				}
				defer f.Close()
				b, err := io.ReadAll(f)
				if err == nil && !slices.Equal(b, want[c.url(t)]) {
					err = fmt.Errorf("%s: another decode gave other pixels", c.url(t))
				}
				if err != nil {
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCompressed reads images from gzip streams, whose size is known only
// once decoded: the header is read from the start of the stream.
func TestCompressed(t *testing.T) {
	for _, name := range []string{"png-rgb8.png", "tiff-rgb8-lzw.tif", "avif-10bit.avif", "webp-lossy-alpha.webp"} {
		i := slices.IndexFunc(imageCases, func(c imageCase) bool { return c.file == name })
		c := imageCases[i]
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(mustRead(t, c.file))
		zw.Close()
		o := &vfs.Options{Cache: vfs.NewCache(0)}
		putMemory(t, o, "x.gz", buf.Bytes())
		want, _ := openImage(t, c.url(t), o)
		got, im := openImage(t, "memory:x.gz|gzip:|"+c.scheme+":", o)
		if !slices.Equal(got, want) || im.Format != c.scheme {
			t.Errorf("%s in gzip: %v, %d bytes, equal to the file's pixels: %v", c.file, im.Shape, len(got), slices.Equal(got, want))
		}
	}
}
