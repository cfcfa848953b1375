package describe_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/adapters/array"
	_ "github.com/pipefs/pipefs/all"
	pfstest "github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/describe"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestWriteNode checks the text that "pipefs array URL" prints.
func TestWriteNode(t *testing.T) {
	n, fsys, err := array.OpenNode(context.Background(), "file:"+pfstest.Fixture(t, "zarr2/data.zarr")+"/|zarr2:1d.contiguous.zlib.i2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var b strings.Builder
	if err := describe.WriteNode(&b, n, false); err != nil {
		t.Fatal(err)
	}
	want := `format:          zarr2
node:            array
path:            1d.contiguous.zlib.i2
shape:           [4]
chunk shape:     [4] (grid [1])
data type:       int16 (stored "<i2", 2 bytes)
fill value:      0
order:           C
chunk keys:      v2 .
codecs:          zlib {"id":"zlib","level":1}
attributes:      {}
`
	if b.String() != want {
		t.Errorf("WriteNode =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := describe.WriteNode(&b, n, true); err != nil {
		t.Fatal(err)
	}
	var js struct {
		IsArray bool `json:"is_array"`
		Array   struct {
			DType struct {
				Stored string `json:"stored"`
			} `json:"data_type"`
		} `json:"array"`
	}
	if err := json.Unmarshal([]byte(b.String()), &js); err != nil || !js.IsArray || js.Array.DType.Stored != "<i2" {
		t.Errorf("WriteNode(json) = %s: %+v, %v", b.String(), js, err)
	}
	if strings.Contains(b.String(), `\u003c`) {
		t.Errorf("WriteNode(json) escapes <:\n%s", b.String())
	}
}

// TestJSONSections renders inline values, keyed values and sections, and
// leaves out what is only for people.
func TestJSONSections(t *testing.T) {
	d := driver.Description{
		{Value: struct {
			A int    `json:"a"`
			B string `json:"b"`
		}{1, "<x>"}},
		{Label: "A", Text: "one"},
		{Key: "c", Value: []int64(nil)},
		{Key: "s", Label: "sec", Fields: driver.Description{{Key: "d", Label: "d", Text: "two", Value: 2}}},
		{Key: "none"},
	}
	got, err := describe.JSON(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":1,"b":"<x>","c":null,"s":{"d":2}}`; string(got) != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	lines := describe.Lines(d)
	if len(lines) != 2 || lines[0] != (describe.Line{Label: "A", Text: "one"}) || lines[1] != (describe.Line{Label: "sec d", Text: "two"}) {
		t.Errorf("Lines = %+v", lines)
	}
	if _, err := describe.JSON(driver.Description{{Value: 3}}); err == nil {
		t.Error("JSON of an inline number: no error")
	}
}

// TestHeaderPlain: a header that encoding/json cannot marshal (a NaN, a
// func) is written all the same, by its fields, keys in the package's
// style, without the zero members.
func TestHeaderPlain(t *testing.T) {
	type inner struct {
		F  float64
		C  complex128
		Fn func()
	}
	h := &struct {
		N        float64 `json:"n"`
		Inf      float64
		Zero     int
		In       inner
		Bytes    []byte
		FileMode fs.FileMode
	}{N: math.NaN(), Inf: math.Inf(-1), In: inner{F: 1.5, C: complex(1, 2)}, Bytes: []byte{1, 2}, FileMode: 0o644}
	raw, err := describe.JSON(describe.Header(h))
	if err == nil {
		raw, err = describe.Prune(raw)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":"NaN","inf":"-Inf","in":{"f":1.5,"c":[1,2]},"bytes":"AQI=","file_mode":420}`
	if string(raw) != want {
		t.Errorf("Header JSON = %s, want %s", raw, want)
	}
}

// TestHeaderZip names a zip header's method, writes its CRC-32 in hex and
// its keys in the package's style, without the legacy fields.
func TestHeaderZip(t *testing.T) {
	mod := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "a.txt", Method: zip.Deflate, Modified: mod, NonUTF8: true})
	w.Write([]byte("# Guide\n"))
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(zb.Bytes()), int64(zb.Len()))
	if err != nil {
		t.Fatal(err)
	}
	h := &zr.File[0].FileHeader // with the legacy fields, as archive/zip reads them
	d := describe.Header(h)
	text := map[string]string{}
	for _, l := range describe.Lines(d) {
		text[l.Label] = l.Text
	}
	for k, v := range map[string]string{"Name": "a.txt", "Method": "Deflate (8)", "CRC32": "0fa67ba2", "Modified": "2024-01-02T03:04:05Z", "UncompressedSize64": "8"} {
		if text[k] != v {
			t.Errorf("Header line %s = %q, want %q (%v)", k, text[k], v, text)
		}
	}
	if _, ok := text["ModifiedTime"]; ok {
		t.Errorf("Header shows the legacy ModifiedTime: %v", text)
	}
	raw, err := describe.JSON(d)
	if err == nil {
		raw, err = describe.Prune(raw)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"crc32":262568866`, `"uncompressed_size64":8`, `"reader_version":20`, `"modified":"2024-01-02T03:04:05Z"`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("Header JSON %s has no %s", raw, key)
		}
	}
	if strings.Contains(string(raw), `"modified_time"`) || strings.Contains(string(raw), `"modified_date"`) {
		t.Errorf("Header JSON %s has the legacy MS-DOS time", raw)
	}
}
