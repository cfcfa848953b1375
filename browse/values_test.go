package browse

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
)

// h5Values is what scripts/h5values.py prints of a dataset.
type h5Values struct {
	DType string            `json:"dtype"`
	Total int64             `json:"total"`
	First []json.RawMessage `json:"first"`
	Min   json.RawMessage   `json:"min"`
	Max   json.RawMessage   `json:"max"`
	NaN   int64             `json:"nan"`
}

// h5ValuesOf runs scripts/h5values.py on files with the python3 that has
// h5py, or, outside CI without one, reads its committed output,
// testdata/h5values.json (rewrite it with scripts/h5values.py when the
// files change).
func h5ValuesOf(t *testing.T, files ...string) map[string]map[string]h5Values {
	t.Helper()
	var b []byte
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import h5py").Run() == nil {
		var stderr bytes.Buffer
		cmd := exec.Command(py, append([]string{"../scripts/h5values.py"}, files...)...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("scripts/h5values.py: %v\n%s", err, stderr.Bytes())
		}
		b = out
	} else {
		if fstest.InCI() {
			fstest.Unavailable(t, "h5py is not installed (Debian: python3-h5py)")
		}
		t.Log("h5py is not installed: the values are those of testdata/h5values.json")
		var err error
		if b, err = os.ReadFile("testdata/h5values.json"); err != nil {
			t.Fatal(err)
		}
	}
	var v map[string]map[string]h5Values
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// sameValue reports whether got, a value as a page writes it, is want, as
// scripts/h5values.py writes it: an integer (1 and 0 for booleans), or
// the text of a float64; bits is the size of the float type, whose
// shortest text got is.
func sameValue(got string, want json.RawMessage, bits int) bool {
	var s string
	if json.Unmarshal(want, &s) != nil {
		switch got {
		case "true":
			got = "1"
		case "false":
			got = "0"
		}
		return got == string(want)
	}
	g, err1 := strconv.ParseFloat(got, bits)
	w, err2 := strconv.ParseFloat(s, 64)
	return err1 == nil && err2 == nil && (g == w || math.IsNaN(g) && math.IsNaN(w))
}

// valuesKnownWrong are the datasets whose elements the HDF5 adapter reads
// wrong, by file:path, with why: a fault of the adapter, not of the page.
var valuesKnownWrong = map[string]string{}

// TestServeValues compares the values and ranges that the pages of 1-D
// and scalar HDF5 datasets show with those h5py reads
// (scripts/h5values.py): integers of every size and order, booleans,
// float16 to float64, and infinities, NaN and -0.
func TestServeValues(t *testing.T) {
	files := []string{"../adapters/hdf5adapter/testdata/h5py/types_latest.h5", fstest.Fixture(t, "hdf5/earliest_extra.hdf5")}
	want := h5ValuesOf(t, files...)
	checked := 0
	for _, file := range files {
		abs, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		s := serverAt(t, "file:"+filepath.ToSlash(abs), nil)
		sets := want[filepath.Base(file)]
		if len(sets) == 0 {
			t.Fatalf("h5values.py lists no dataset of %s", file)
		}
		for _, name := range slices.Sorted(maps.Keys(sets)) {
			if reason, ok := valuesKnownWrong[filepath.Base(file)+":"+name]; ok {
				t.Logf("%s %s not checked: %s", filepath.Base(file), name, reason)
				continue
			}
			w := sets[name]
			bits := 64
			if strings.HasSuffix(w.DType, "f2") || strings.HasSuffix(w.DType, "f4") {
				bits = 32
			}
			p := fetchPage(t, s, escapeTestPath(name)+"/", 200)
			v := p.Node.Values
			if v == nil {
				t.Errorf("%s %s (%s): no values; no_preview %q", filepath.Base(file), name, w.DType, p.Node.NoPreview)
				continue
			}
			checked++
			if v.Total != w.Total || len(v.List) != len(w.First) {
				t.Errorf("%s %s: %d of %d values listed, h5py %d of %d", filepath.Base(file), name, len(v.List), v.Total, len(w.First), w.Total)
				continue
			}
			for i, g := range v.List {
				if !sameValue(g, w.First[i], bits) {
					t.Errorf("%s %s[%d] = %s, h5py %s", filepath.Base(file), name, i, g, w.First[i])
				}
			}
			r := p.Node.Range
			if w.Total == 0 {
				if r != nil {
					t.Errorf("%s %s: range %+v of no value", filepath.Base(file), name, r)
				}
				continue
			}
			if r == nil || r.Count != w.Total || r.NaN != w.NaN {
				t.Errorf("%s %s: range %+v, h5py %d values, %d NaN", filepath.Base(file), name, r, w.Total, w.NaN)
				continue
			}
			if string(w.Min) == "null" {
				if r.Min != "" || r.Max != "" {
					t.Errorf("%s %s: range %q to %q of values all NaN", filepath.Base(file), name, r.Min, r.Max)
				}
			} else if !sameValue(r.Min, w.Min, bits) || !sameValue(r.Max, w.Max, bits) {
				t.Errorf("%s %s: range %s to %s, h5py %s to %s", filepath.Base(file), name, r.Min, r.Max, w.Min, w.Max)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d datasets checked", checked)
	}
}

// escapeTestPath escapes the segments of an HDF5 path for a request.
func escapeTestPath(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = hrefEscape(s)
	}
	return strings.Join(segs, "/")
}

// TestServeValuesTruncated: the page of a 1-D array longer than maxValues
// lists its first maxValues values and says so, with the range of every
// value, read across chunks; the preview of a 2-D plane has the range of
// the plane, NaN counted apart.
func TestServeValuesTruncated(t *testing.T) {
	const n, chunk = 250, 128
	var elems bytes.Buffer
	for i := range 2 * chunk {
		binary.Write(&elems, binary.LittleEndian, int32(1000-7*i))
	}
	plane := []float32{1.5, float32(math.NaN()), -2, float32(math.Inf(1)), float32(math.NaN()), 0}
	var planeBytes bytes.Buffer
	binary.Write(&planeBytes, binary.LittleEndian, plane)
	files := map[string][]byte{
		"v/long/zarr.json": fmt.Appendf(nil, `{"zarr_format":3,"node_type":"array","shape":[%d],"data_type":"int32",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[%d]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}`, n, chunk),
		"v/long/c/0": elems.Bytes()[:4*chunk],
		"v/long/c/1": elems.Bytes()[4*chunk:],
		"v/plane/zarr.json": []byte(`{"zarr_format":3,"node_type":"array","shape":[2,3],"data_type":"float32",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2,3]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}`),
		"v/plane/c/0/0": planeBytes.Bytes(),
	}
	for name, b := range files {
		if err := memroot.WriteFile("browse-values/"+name, b); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { memroot.RemoveAll("browse-values") })
	s := serverAt(t, "memory:browse-values/v/", nil)

	p := fetchPage(t, s, "/long/", 200)
	v := p.Node.Values
	if v == nil || v.Total != n || len(v.List) != maxValues || v.List[0] != "1000" || v.List[99] != strconv.Itoa(1000-7*99) {
		t.Fatalf("long: values %+v", v)
	}
	if r := p.Node.Range; r == nil || r.Count != n || r.Min != strconv.Itoa(1000-7*(n-1)) || r.Max != "1000" || r.Of != "all values" {
		t.Errorf("long: range %+v, want %d to 1000 of all %d values", r, 1000-7*(n-1), n)
	}
	html := body(t, fetch(t, s, "/long/"))
	for _, want := range []string{"<pre id=\"values\">[1000, 993, ", ", 307, …]</pre>", "The first 100 of 250 values.", "Minimum <b>-743</b>, maximum <b>1000</b> of all values (250 values)."} {
		if !strings.Contains(html, want) {
			t.Errorf("the page of long lacks %q:\n%s", want, html)
		}
	}

	p = fetchPage(t, s, "/plane/", 200)
	if r := p.Node.Range; r == nil || r.Min != "-2" || r.Max != "inf" || r.NaN != 2 || r.Count != 6 || r.Of != "the previewed plane" {
		t.Errorf("plane: range %+v, want -2 to inf, 2 NaN of 6 values", r)
	}
	if p.Node.Values != nil {
		t.Errorf("plane: a 2-D array lists values %+v", p.Node.Values)
	}
	if html := body(t, fetch(t, s, "/plane/")); !strings.Contains(html, "Minimum <b>-2</b>, maximum <b>inf</b> of the previewed plane (6 values, 2 NaN).") {
		t.Errorf("the page of plane lacks its range:\n%s", html)
	}
}

// FuzzValueRange: the range and the text of elements of any numeric type
// from any bytes never panic, and the range holds every element that is
// not NaN.
func FuzzValueRange(f *testing.F) {
	f.Add(byte('f'), 4, []byte{0, 0, 0xc0, 0x7f, 0, 0, 0x80, 0x3f})
	f.Add(byte('i'), 8, []byte{1, 2, 3, 4, 5, 6, 7, 0x80})
	f.Add(byte('u'), 2, []byte{0xff, 0xff, 0, 0})
	f.Add(byte('b'), 1, []byte{0, 2})
	f.Add(byte('f'), 2, []byte{0, 0x7c, 0, 0xfc, 1, 0x7c})
	f.Fuzz(func(t *testing.T, kind byte, size int, data []byte) {
		d := array.DType{Kind: kind, Size: size}
		if !previewable(d) {
			return
		}
		r := &valueRange{d: d}
		r.addAll(data)
		v := r.view("fuzz")
		if v.Count != int64(len(data)/size) {
			t.Fatalf("%d values counted of %d bytes of %d", v.Count, len(data), size)
		}
		for off := 0; off+size <= len(data); off += size {
			s := formatElement(d, data[off:off+size])
			if kind == 'b' || s == "nan" {
				continue
			}
			x, err := strconv.ParseFloat(s, 64)
			lo, err1 := strconv.ParseFloat(v.Min, 64)
			hi, err2 := strconv.ParseFloat(v.Max, 64)
			if err != nil || err1 != nil || err2 != nil {
				t.Fatalf("%q, %q, %q: %v %v %v", s, v.Min, v.Max, err, err1, err2)
			}
			if x < lo || x > hi {
				t.Fatalf("%s outside the range %s to %s", s, v.Min, v.Max)
			}
		}
	})
}
