package browse

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"slices"
	"testing"
)

// Sizes of the array of the test nest: rows, columns and chunk side.
const (
	nestRows, nestCols, nestChunk = 40, 70, 32
)

// nestZarr returns the files of a Zarr v3 hierarchy: a group data.zarr
// with the attribute title, holding grad, a uint16 array of nestRows x
// nestCols in chunks of nestChunk a side whose element (y, x) is
// 100*y + x; names, a string array (no preview); many, 20 x 20 in
// chunks of one element (too many for a preview); and big, float32 of 3
// x 1000 x 1300 with no chunk stored (a preview scaled down).
func nestZarr(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{
		"data.zarr/zarr.json": []byte(`{"zarr_format":3,"node_type":"group","attributes":{"title":"test nest","note":"a <b> & c"}}`),
		"data.zarr/grad/zarr.json": fmt.Appendf(nil, `{"zarr_format":3,"node_type":"array","shape":[%d,%d],"data_type":"uint16",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[%d,%d]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
"attributes":{"units":"counts"},"dimension_names":["y","x"]}`, nestRows, nestCols, nestChunk, nestChunk),
		"data.zarr/many/zarr.json": []byte(`{"zarr_format":3,"node_type":"array","shape":[20,20],"data_type":"uint8",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[1,1]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":0,"codecs":[{"name":"bytes"}]}`),
		"data.zarr/big/zarr.json": []byte(`{"zarr_format":3,"node_type":"array","shape":[3,1000,1300],"data_type":"float32",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[1,1000,1300]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}`),
		"data.zarr/names/zarr.json": []byte(`{"zarr_format":3,"node_type":"array","shape":[2],"data_type":"string",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":"","codecs":[{"name":"vlen-utf8"}]}`),
	}
	for cy := 0; cy*nestChunk < nestRows; cy++ {
		for cx := 0; cx*nestChunk < nestCols; cx++ {
			var b bytes.Buffer
			for y := cy * nestChunk; y < (cy+1)*nestChunk; y++ {
				for x := cx * nestChunk; x < (cx+1)*nestChunk; x++ {
					v := uint16(0)
					if y < nestRows && x < nestCols {
						v = uint16(100*y + x)
					}
					binary.Write(&b, binary.LittleEndian, v)
				}
			}
			files[fmt.Sprintf("data.zarr/grad/c/%d/%d", cy, cx)] = b.Bytes()
		}
	}
	return files
}

// tarGzFiles returns a gzip-compressed tar of files, with their directories.
func tarGzFiles(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	dirs := map[string]bool{}
	for _, name := range sortedNames(files) {
		for i := range len(name) {
			if name[i] == '/' && !dirs[name[:i+1]] {
				dirs[name[:i+1]] = true
				if err := tw.WriteHeader(&tar.Header{Name: name[:i+1], Typeflag: tar.TypeDir, Mode: 0o755, ModTime: modTime}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(files[name])), ModTime: modTime}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[name])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedNames(m map[string][]byte) []string {
	return slices.Sorted(maps.Keys(m))
}

// nestPNG returns a PNG image of 60 x 40 pixels: red across, green down.
func nestPNG(t testing.TB) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, 60, 40))
	for y := range 40 {
		for x := range 60 {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x * 4), uint8(y * 6), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// nestZip returns the outer archive of the test nest:
//
//	outer.zip
//	├── inner.tar.gz     data.zarr/ (see nestZarr)
//	├── picture.png      (see nestPNG)
//	├── notes.txt        "plain text\n"
//	└── site/index.html  a page with a script
func nestZip(t testing.TB) []byte {
	return zipOf(t,
		entry{name: "inner.tar.gz", body: string(tarGzFiles(t, nestZarr(t))), store: true},
		entry{name: "notes.txt", body: "plain text\n"},
		entry{name: "picture.png", body: string(nestPNG(t)), store: true},
		entry{name: "site/"},
		entry{name: "site/index.html", body: "<!DOCTYPE html><title>site</title><script>document.title='scripted'</script><p>archived page</p>"},
	)
}
