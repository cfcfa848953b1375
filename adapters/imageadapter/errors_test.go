package imageadapter_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// openBytes opens b as scheme and reads it whole.
func openBytes(scheme string, b []byte) error {
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	if err := putMemoryErr(o, "x", b); err != nil {
		return err
	}
	f, err := vfs.Open(context.Background(), "memory:x|"+scheme+":", o)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.ReadAll(f)
	return err
}

// tiffWith returns a little-endian TIFF header pointing at an IFD at 8
// with the given entries (tag, type SHORT or LONG, one value) and next
// IFD offset.
func tiffWith(entries [][2]uint32, next uint32) []byte {
	b := []byte("II*\x00\x08\x00\x00\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(entries)))
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint16(b, uint16(e[0]))
		b = binary.LittleEndian.AppendUint16(b, 4) // LONG
		b = binary.LittleEndian.AppendUint32(b, 1)
		b = binary.LittleEndian.AppendUint32(b, e[1])
	}
	b = binary.LittleEndian.AppendUint32(b, next)
	return append(b, make([]byte, 64)...)
}

func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name, scheme string
		data         []byte
		want         string
	}{
		{"4-bit TIFF palette", "tiff", mustRead(t, "tiff-palette4.tif"), "4 bits per sample"},
		{"BigTIFF", "tiff", []byte("II+\x00\x08\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00"), "BigTIFF"},
		{"TIFF CMYK", "tiff", tiffWith([][2]uint32{{256, 4}, {257, 4}, {258, 8}, {262, 5}, {277, 4}}, 0), "photometric interpretation 5 (CMYK);"},
		{"TIFF YCbCr", "tiff", tiffWith([][2]uint32{{256, 4}, {257, 4}, {258, 8}, {262, 6}, {277, 3}}, 0), "photometric interpretation 6 (YCbCr);"},
		{"TIFF unknown photometric", "tiff", tiffWith([][2]uint32{{256, 4}, {257, 4}, {258, 8}, {262, 77}, {277, 3}}, 0), "photometric interpretation 77 (an unknown one);"},
		{"TIFF planes", "tiff", tiffWith([][2]uint32{{256, 4}, {257, 4}, {258, 8}, {262, 2}, {277, 3}, {284, 2}}, 0), "separate planes"},
		{"lossless JPEG", "jpeg", []byte("\xff\xd8\xff\xc3\x00\x0b\x08\x00\x10\x00\x10\x01\x01\x11\x00"), "SOF3"},
		{"animated WebP", "webp", append([]byte("RIFF\x1e\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00"), make([]byte, 8)...), "animated"},
	} {
		err := openBytes(tc.scheme, tc.data)
		if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrUnsupported with %q", tc.name, err, tc.want)
		}
	}
}

func TestTIFFCycle(t *testing.T) {
	// One IFD whose next-IFD offset points back at itself.
	b := tiffWith([][2]uint32{{256, 4}, {257, 4}, {258, 8}, {262, 1}, {273, 100}, {277, 1}, {279, 16}}, 8)
	err := openBytes("tiff", b)
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "loops back") {
		t.Errorf("IFD cycle: %v, want ErrCorrupt naming the loop", err)
	}
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	if err := putMemoryErr(o, "x", b); err != nil {
		t.Fatal(err)
	}
	if _, err := vfs.OpenFS(context.Background(), "memory:x|pipefs.pages:page/", o); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("pages of an IFD cycle: %v, want ErrCorrupt", err)
	}
}

// TestHeaderLimits checks that every format's header size is checked
// before decoding: a header declaring a huge image fails with ErrLimit.
func TestHeaderLimits(t *testing.T) {
	bmp := mustRead(t, "bmp-24.bmp")
	binary.LittleEndian.PutUint32(bmp[18:], 1<<30)
	binary.LittleEndian.PutUint32(bmp[22:], 1<<20)
	tif := tiffWith([][2]uint32{{256, 1 << 30}, {257, 1 << 30}, {258, 8}, {262, 1}, {277, 1}}, 0)
	jpg := mustRead(t, "jpeg-gray.jpg")
	// The SOF0 of jpeg-gray.jpg: ff c0, length, precision, height, width.
	i := strings.Index(string(jpg), "\xff\xc0")
	binary.BigEndian.PutUint16(jpg[i+5:], 65535)
	binary.BigEndian.PutUint16(jpg[i+7:], 65535)
	for _, tc := range []struct {
		scheme string
		data   []byte
	}{{"png", bomb(1<<30, 1<<30)}, {"bmp", bmp}, {"tiff", tif}, {"jpeg", jpg}} {
		o := &vfs.Options{Cache: vfs.NewCache(0), Limits: vfs.Limits{MaxChunk: 1 << 30}}
		if err := putMemoryErr(o, "x", tc.data); err != nil {
			t.Fatal(err)
		}
		_, err := vfs.Open(context.Background(), "memory:x|"+tc.scheme+":", o)
		if !errors.Is(err, driver.ErrLimit) {
			t.Errorf("%s: %v, want ErrLimit", tc.scheme, err)
		}
	}
}

func putMemoryErr(o *vfs.Options, key string, b []byte) error {
	return memroot.For(o.Cache).WriteFile(key, b)
}

// manyPages returns a little-endian TIFF of n 1x1 gray pages; page i's
// pixel is i mod 256.
func manyPages(n int) []byte {
	const ifdSize = 2 + 8*12 + 4
	b := []byte("II*\x00\x08\x00\x00\x00")
	le := binary.LittleEndian
	for i := range n {
		off := 8 + i*(ifdSize+1)
		next := uint32(off + ifdSize + 1)
		if i == n-1 {
			next = 0
		}
		b = le.AppendUint16(b, 8)
		for _, e := range [][2]uint32{{256, 1}, {257, 1}, {258, 8}, {262, 1}, {273, uint32(off + ifdSize)}, {277, 1}, {278, 1}, {279, 1}} {
			b = le.AppendUint16(b, uint16(e[0]))
			b = le.AppendUint16(b, 4)
			b = le.AppendUint32(b, 1)
			b = le.AppendUint32(b, e[1])
		}
		b = le.AppendUint32(b, next)
		b = append(b, byte(i))
	}
	return b
}

// TestManyPages lists a TIFF of 3000 pages, reads some, and refuses it
// under a lower Limits.MaxEntries.
func TestManyPages(t *testing.T) {
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	if err := putMemoryErr(o, "x.tif", manyPages(3000)); err != nil {
		t.Fatal(err)
	}
	fsys, err := vfs.OpenFS(context.Background(), "memory:x.tif|pipefs.pages:page/", o)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil || len(ents) != 3000 {
		t.Fatalf("ReadDir: %d entries, %v; want 3000", len(ents), err)
	}
	for _, i := range []int{0, 1, 299, 2999} {
		b, err := fs.ReadFile(fsys, strconv.Itoa(i))
		if err != nil || len(b) != 1 || b[0] != byte(i) {
			t.Errorf("page %d: %v, %v; want [%d]", i, b, err, byte(i))
		}
	}
	_, im := openImage(t, "memory:x.tif|tiff:", o)
	if im.Pages != 3000 {
		t.Errorf("Pages = %d, want 3000", im.Pages)
	}
	o.Limits.MaxEntries = 100
	if _, err := vfs.OpenFS(context.Background(), "memory:x.tif|pipefs.pages:page/", o); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("3000 pages under MaxEntries 100: %v, want ErrLimit", err)
	}
}

// TestCMYKTIFF opens a CMYK TIFF that ImageMagick writes: the error names
// CMYK, and what tiff: reads instead.
func TestCMYKTIFF(t *testing.T) {
	convert := fstest.NeedTool(t, "convert")
	out := filepath.Join(t.TempDir(), "cmyk.tif")
	if b, err := exec.Command(convert, imagePath(t, "png-rgb8.png"), "-colorspace", "CMYK", "-compress", "none", out).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v: %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	err = openBytes("tiff", b)
	if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "photometric interpretation 5 (CMYK); tiff: reads") {
		t.Errorf("CMYK TIFF: %v, want ErrUnsupported naming CMYK", err)
	}
}

// TestGIF opens a GIF that ImageMagick writes, and the start of a GIF87a,
// with every image scheme: each says that GIF is not read, and which
// schemes are.
func TestGIF(t *testing.T) {
	convert := fstest.NeedTool(t, "convert")
	out := filepath.Join(t.TempDir(), "a.gif")
	if b, err := exec.Command(convert, imagePath(t, "png-rgb8.png"), out).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v: %s", err, b)
	}
	gif, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{gif, []byte("GIF87a\x01\x00\x01\x00")} {
		for _, scheme := range []string{"png", "jpeg", "bmp", "tiff", "webp", "avif", "pipefs.pages"} {
			err := openBytes(scheme, data)
			if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "GIF image") ||
				!strings.Contains(err.Error(), "avif:, bmp:, jpeg:, png:, tiff:, webp:") {
				t.Errorf("%s: on %.6s: %v, want ErrUnsupported naming GIF and the image schemes", scheme, data, err)
			}
		}
	}
	// Not a GIF: "GIF8" alone is still not a PNG.
	if err := openBytes("png", []byte("GIF8")); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("png: on GIF8: %v, want ErrCorrupt", err)
	}
}

// TestAVIFItemLength shortens the length that the iloc box gives the
// image item of an AVIF, leaving the file whole: the decoder would decode
// the shorter AV1 data without an error; the adapter reports it corrupt.
func TestAVIFItemLength(t *testing.T) {
	b := mustRead(t, "avif-rgb444.avif")
	i := strings.Index(string(b), "iloc")
	// Version 0, 4-byte offsets and lengths, no base offset: item count,
	// then item ID, data reference index, extent count, offset, length.
	if i < 0 || b[i+4] != 0 || b[i+8] != 0x44 || b[i+9]&0xf0 != 0 {
		t.Fatalf("avif-rgb444.avif: iloc box not of the layout the test edits")
	}
	at := i + 4 + 6 + 2 + 2 + 2 + 2 + 4
	n := binary.BigEndian.Uint32(b[at:])
	for _, cut := range []uint32{1, 5, n / 2, n - 1} {
		c := slices.Clone(b)
		binary.BigEndian.PutUint32(c[at:], n-cut)
		if err := openBytes("avif", c); !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "AV1 OBU") {
			t.Errorf("item length %d of %d: %v, want ErrCorrupt naming the AV1 OBU cut short", n-cut, n, err)
		}
	}
}
