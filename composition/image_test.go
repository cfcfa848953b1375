package composition_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/adapters/imageadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// testImage returns a test image of the image adapter and its reference
// pixels (raw RGBA, as ImageMagick decodes it).
func testImage(t testing.TB, name string) (img, rgba []byte) {
	t.Helper()
	dir := filepath.Join("..", "adapters", "imageadapter", "testdata", "images")
	img, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if rgba, err = os.ReadFile(filepath.Join(dir, name+".rgba")); err != nil {
		t.Fatal(err)
	}
	return img, rgba
}

// readImage opens pipeline as a file and returns its bytes and Image.
func readImage(t testing.TB, pipeline string, o *vfs.Options) ([]byte, *imageadapter.Image) {
	t.Helper()
	f, err := vfs.Open(context.Background(), pipeline, o)
	if err != nil {
		t.Fatalf("OpenFile(%s): %v", pipeline, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	im, ok := info.Sys().(*vfs.Origin).Header.(*imageadapter.Image)
	if !ok {
		t.Fatalf("%s: Sys is a %T, want *imageadapter.Image", pipeline, info.Sys().(*vfs.Origin).Header)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("reading %s: %v", pipeline, err)
	}
	return b, im
}

// TestPNGInZip reads a PNG that is a member of a zip, stored and
// deflated, from memory and over HTTP.
func TestPNGInZip(t *testing.T) {
	png, rgba := testImage(t, "png-rgba8.png")
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		z := fstest.ZipBytes(map[string][]byte{"img/a.png": png, "readme.txt": []byte("hi")}, method)
		o := &vfs.Options{Cache: vfs.NewCache(0)}
		if err := memroot.For(o.Cache).WriteFile("x.zip", z); err != nil {
			t.Fatal(err)
		}
		srv := fstest.NewHTTPServerFS(t, map[string][]byte{"x.zip": z}, nil)
		for _, p := range []string{"memory:x.zip|zip:img/a.png|png:", srv.URL() + "/x.zip|zip:img/a.png|png:"} {
			got, im := readImage(t, p, o)
			if !bytes.Equal(got, rgba) || im.Channels != "RGBA" {
				t.Errorf("%s (method %d): %s pixels equal to the reference: %v", p, method, im.Channels, bytes.Equal(got, rgba))
			}
		}
	}
}

// TestZarrPNGChunks reads the chunk files of a Zarr v3 array, each a PNG,
// through png:, and the array's own description through zarr3:.
func TestZarrPNGChunks(t *testing.T) {
	png, rgba := testImage(t, "png-rgb8.png")
	gray, grayRef := testImage(t, "png-gray8.png")
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	st := memroot.For(o.Cache)
	files := map[string][]byte{
		"a.zarr/zarr.json": []byte(`{"zarr_format":3,"node_type":"group","attributes":{}}`),
		"a.zarr/img/zarr.json": []byte(`{"zarr_format":3,"node_type":"array","shape":[48,32,3],"data_type":"uint8",
			"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[24,32,3]}},
			"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
			"fill_value":0,"codecs":[{"name":"bytes"}],"attributes":{"chunks":"PNG files"}}`),
		"a.zarr/img/c/0/0/0": png,
		"a.zarr/img/c/1/0/0": gray,
	}
	for k, v := range files {
		if err := st.WriteFile(k, v); err != nil {
			t.Fatal(err)
		}
	}
	// The array is described by zarr3: as it is stored.
	n, fsys, err := array.OpenNode(context.Background(), "memory:a.zarr/|zarr3:img", o)
	if err != nil {
		t.Fatal(err)
	}
	fsys.Close()
	if !n.IsArray || n.Array.Shape[0] != 48 {
		t.Fatalf("node %+v", n)
	}
	// Each chunk file reads as an image, by its key in the store, from
	// the directory and from a zip of it. (zarr3: yields a dataset, so
	// "zarr3:img/c/0/0/0|png:" is a kind mismatch of the grammar.)
	zipped := map[string][]byte{}
	for k, v := range files {
		zipped[k] = v
	}
	if err := st.WriteFile("a.zarr.zip", fstest.ZipBytes(zipped, zip.Deflate)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want []byte
		ch   int64
	}{
		{"img/c/0/0/0", rgbOf(rgba), 3},
		{"img/c/1/0/0", grayOf(grayRef), 1},
	} {
		for _, p := range []string{"memory:a.zarr/" + tc.key + "|png:", "memory:a.zarr.zip|zip:a.zarr/" + tc.key + "|png:"} {
			got, im := readImage(t, p, o)
			if !bytes.Equal(got, tc.want) || im.Shape[2] != tc.ch {
				t.Errorf("%s: shape %v, pixels equal to the reference: %v", p, im.Shape, bytes.Equal(got, tc.want))
			}
		}
	}
}

// rgbOf keeps R, G and B of raw RGBA.
func rgbOf(rgba []byte) []byte {
	var out []byte
	for i := 0; i+3 < len(rgba); i += 4 {
		out = append(out, rgba[i:i+3]...)
	}
	return out
}

// grayOf keeps R of raw RGBA.
func grayOf(rgba []byte) []byte {
	var out []byte
	for i := 0; i+3 < len(rgba); i += 4 {
		out = append(out, rgba[i])
	}
	return out
}

// TestImageTruncatedAVIFInGzip reads an AVIF cut short through gzip:, whose
// size is learnt only by decompressing: the header opens, and the first
// read fails as corrupt instead of giving pixels whose end is zero. The
// same image, whole, reads as its reference.
func TestImageTruncatedAVIFInGzip(t *testing.T) {
	dir := filepath.Join("..", "adapters", "imageadapter", "testdata", "images")
	whole, err := os.ReadFile(filepath.Join(dir, "avif-rgb420.avif"))
	if err != nil {
		t.Fatal(err)
	}
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	st := memroot.For(o.Cache)
	for name, b := range map[string][]byte{"whole.avif.gz": whole, "cut.avif.gz": whole[:len(whole)-40]} {
		if err := st.WriteFile(name, gzipBytes(t, b)); err != nil {
			t.Fatal(err)
		}
	}
	if got, im := readImage(t, "memory:whole.avif.gz|gzip:|avif:", o); int64(len(got)) != im.Size() || im.Format != "avif" {
		t.Fatalf("whole AVIF in gzip: %d bytes, %+v", len(got), im)
	}
	f, err := vfs.Open(context.Background(), "memory:cut.avif.gz|gzip:|avif:", o)
	if err == nil {
		_, err = io.ReadAll(f)
		f.Close()
	}
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "ends early") {
		t.Errorf("AVIF cut short in gzip: %v, want ErrCorrupt saying the file ends early", err)
	}
}

// TestImageGIFInZip gives a GIF inside a zip to png:: the error says GIF is
// not read and which schemes read images.
func TestImageGIFInZip(t *testing.T) {
	gif := []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	if err := memroot.For(o.Cache).WriteFile("x.zip", fstest.ZipBytes(map[string][]byte{"a.gif": gif}, zip.Deflate)); err != nil {
		t.Fatal(err)
	}
	_, err := vfs.Open(context.Background(), "memory:x.zip|zip:a.gif|png:", o)
	if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "GIF") || !strings.Contains(err.Error(), "png:") {
		t.Errorf("GIF in a zip through png:: %v, want ErrUnsupported naming GIF and the image schemes", err)
	}
}
