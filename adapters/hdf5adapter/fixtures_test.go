package hdf5adapter_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// fixture returns the pipeline of a shared HDF5 fixture, opened with hdf5:.
func fixture(t testing.TB, name string) string {
	t.Helper()
	return "file:" + filepath.ToSlash(fstest.Fixture(t, "hdf5/"+name)) + "|hdf5:"
}

func openFixture(t testing.TB, name string) *vfs.FS {
	t.Helper()
	fsys, err := vfs.OpenFS(context.Background(), fixture(t, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// sysOf returns the Sys of the named file, unwrapped from its *vfs.Origin.
func sysOf(t testing.TB, fsys fs.FS, name string) any {
	t.Helper()
	info, err := fs.Stat(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return unwrap(info.Sys())
}

func unwrap(sys any) any {
	if o, ok := sys.(*vfs.Origin); ok {
		return o.Header
	}
	return sys
}

func dataset(t testing.TB, fsys fs.FS, name string) *hdf5adapter.Dataset {
	t.Helper()
	d, ok := sysOf(t, fsys, name).(*hdf5adapter.Dataset)
	if !ok {
		t.Fatalf("%s: Sys is %T, want *Dataset", name, sysOf(t, fsys, name))
	}
	return d
}

func group(t testing.TB, fsys fs.FS, name string) *hdf5adapter.Group {
	t.Helper()
	g, ok := sysOf(t, fsys, name).(*hdf5adapter.Group)
	if !ok {
		t.Fatalf("%s: Sys is %T, want *Group", name, sysOf(t, fsys, name))
	}
	return g
}

// enc encodes values as elements of numpy type typ ("<i4", ">u8", "<f4",
// "<f8", "<i2", "|u1", "<u2", "<i8", ">i4").
func enc(typ string, vals ...float64) []byte {
	var bo binary.AppendByteOrder = binary.LittleEndian
	if typ[0] == '>' {
		bo = binary.BigEndian
	}
	var out []byte
	for _, v := range vals {
		switch typ[1:] {
		case "u1", "i1":
			out = append(out, byte(int64(v)))
		case "i2", "u2":
			out = bo.AppendUint16(out, uint16(int64(v)))
		case "i4", "u4":
			out = bo.AppendUint32(out, uint32(int64(v)))
		case "i8", "u8":
			out = bo.AppendUint64(out, uint64(int64(v)))
		case "f4":
			out = bo.AppendUint32(out, math.Float32bits(float32(v)))
		case "f8":
			out = bo.AppendUint64(out, math.Float64bits(v))
		default:
			panic(typ)
		}
	}
	return out
}

// arange returns 0, 1, ..., n-1.
func arange(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	return v
}

// checkFile reads name whole and at random ranges and compares with want.
func checkFile(t *testing.T, fsys fs.FS, name string, want []byte) {
	t.Helper()
	got, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got % x\nwant % x", name, got, want)
		return
	}
	f, err := fsys.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ra := f.(interface {
		ReadAt([]byte, int64) (int, error)
	})
	r := rand.New(rand.NewPCG(1, uint64(len(want))))
	for range 100 {
		off := r.IntN(len(want) + 1)
		n := r.IntN(len(want) - off + 1)
		p := make([]byte, n)
		if m, err := ra.ReadAt(p, int64(off)); m != n || (err != nil && off+n != len(want)) {
			t.Fatalf("%s: ReadAt(%d, %d) = %d, %v", name, n, off, m, err)
		}
		if !bytes.Equal(p, want[off:off+n]) {
			t.Fatalf("%s: ReadAt(%d, %d) = % x, want % x", name, n, off, p, want[off:off+n])
		}
	}
}

func TestEarliestLatest(t *testing.T) {
	for _, name := range []string{"earliest.hdf5", "latest.hdf5"} {
		t.Run(name, func(t *testing.T) {
			fsys := openFixture(t, name)
			checkFile(t, fsys, "dataset1", enc("<i4", 0, 1, 2, 3))
			checkFile(t, fsys, "group1/dataset2", enc(">u8", 0, 1, 2, 3))
			checkFile(t, fsys, "group1/subgroup1/dataset3", enc("<f4", 0, 1, 2, 3))
			if g := group(t, fsys, "."); !reflect.DeepEqual(g.Attributes, map[string]any{"attr1": int64(-123)}) {
				t.Errorf("/ attributes %v", g.Attributes)
			}
			d := dataset(t, fsys, "dataset1")
			if d.DType.NumPy != "<i4" || !slices.Equal(d.Shape, []int64{4}) || d.Layout != "contiguous" || d.Path != "/dataset1" {
				t.Errorf("dataset1: %+v", d)
			}
			if d.Attributes["attr2"] != uint64(130) {
				t.Errorf("attr2 = %#v", d.Attributes["attr2"])
			}
			if v := group(t, fsys, "group1").Attributes["attr3"]; v != float64(float32(12.34)) {
				t.Errorf("attr3 = %#v", v)
			}
			d2 := dataset(t, fsys, "group1/dataset2")
			if d2.DType.NumPy != ">u8" || d2.Attributes["attr4"] != "Hi" {
				t.Errorf("dataset2: %+v", d2)
			}
			if v := group(t, fsys, "group1/subgroup1").Attributes["attr5"]; v != "Test" {
				t.Errorf("attr5 = %#v", v)
			}
			d3 := dataset(t, fsys, "group1/subgroup1/dataset3")
			if d3.DType.NumPy != "<f4" || d3.Attributes["attr6"] != "Test\u00a7" {
				t.Errorf("dataset3: %+v", d3)
			}
		})
	}
}

func TestChunked(t *testing.T) {
	fsys := openFixture(t, "chunked.hdf5")
	checkFile(t, fsys, "dataset1", enc("<i4", arange(336)...))
	d := dataset(t, fsys, "dataset1")
	if !slices.Equal(d.ChunkShape, []int64{2, 2}) || d.ChunkIndex != "btree1" || d.Layout != "chunked" || d.Attributes["attr1"] != uint64(130) {
		t.Errorf("%+v", d)
	}
}

func TestCompressedDescribe(t *testing.T) {
	fsys := openFixture(t, "compressed.hdf5")
	for _, c := range []struct {
		name    string
		numpy   string
		chunks  []int64
		filters []uint16
	}{
		{"dataset1", "<u2", []int64{2, 2}, []uint16{1}},
		{"dataset2", "<i4", []int64{4, 4}, []uint16{2, 1}},
		{"dataset3", "<f8", []int64{7, 4}, []uint16{2}},
	} {
		d := dataset(t, fsys, c.name)
		var ids []uint16
		for _, f := range d.Filters {
			ids = append(ids, f.ID)
		}
		if d.DType.NumPy != c.numpy || !slices.Equal(d.ChunkShape, c.chunks) || !slices.Equal(ids, c.filters) || !slices.Equal(d.Shape, []int64{21, 16}) {
			t.Errorf("%s: %+v", c.name, d)
		}
		if d.Filters[len(d.Filters)-1].ID == 1 && !slices.Equal(d.Filters[len(d.Filters)-1].Values, []uint32{4}) {
			t.Errorf("%s: gzip level %v, want 4", c.name, d.Filters[len(d.Filters)-1].Values)
		}
	}
}

// TestFilteredReads reads the datasets that need the deflate, shuffle and
// fletcher32 filters.
func TestFilteredReads(t *testing.T) {
	a := enc("<i4", arange(336)...)
	fsys := openFixture(t, "compressed.hdf5")
	checkFile(t, fsys, "dataset1", enc("<u2", arange(336)...))
	checkFile(t, fsys, "dataset2", a)
	checkFile(t, fsys, "dataset3", enc("<f8", arange(336)...))
	v4 := openFixture(t, "chunk_index_v4.hdf5")
	for _, name := range []string{"single_gzip", "farray_filt", "earray", "btree2_gzip"} {
		checkFile(t, v4, name, a)
	}
	checkFile(t, openFixture(t, "offsets4.hdf5"), "g/chunked", enc("<u4", arange(30)...))
}

func TestMultidim(t *testing.T) {
	fsys := openFixture(t, "dataset_multidim.hdf5")
	for name, shape := range map[string][]int64{"a": {2}, "b": {2, 3}, "c": {2, 3, 4}, "d": {2, 3, 4, 5}} {
		n := 1
		for _, v := range shape {
			n *= int(v)
		}
		checkFile(t, fsys, name, enc("<i4", arange(n)...))
		if d := dataset(t, fsys, name); !slices.Equal(d.Shape, shape) {
			t.Errorf("%s: shape %v, want %v", name, d.Shape, shape)
		}
	}
}

// walk lists every path of fsys with its type: "d" directory, "f" file,
// "l" symbolic link.
func walk(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			got[p] = "d"
		case d.Type()&fs.ModeSymlink != 0:
			got[p] = "l"
		default:
			got[p] = "f"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestGroups(t *testing.T) {
	got := walk(t, openFixture(t, "groups.hdf5"))
	want := map[string]string{".": "d", "group1": "d", "group2": "d", "group2/subgroup1": "d", "group2/subgroup2": "d",
		"group2/subgroup2/sub_subgroup1": "d", "group2/subgroup2/sub_subgroup2": "d", "group2/subgroup2/sub_subgroup3": "d"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestLatestDense(t *testing.T) {
	fsys := openFixture(t, "latest_dense.hdf5")
	root := group(t, fsys, ".")
	if len(root.Attributes) != 12 {
		t.Errorf("root attributes %v", root.Attributes)
	}
	for i := range 12 {
		if v := root.Attributes[[]string{"a00", "a01", "a02", "a03", "a04", "a05", "a06", "a07", "a08", "a09", "a10", "a11"}[i]]; v != int64(100+i) {
			t.Errorf("a%02d = %#v", i, v)
		}
	}
	ents, err := fs.ReadDir(fsys, "dense")
	if err != nil || len(ents) != 120 {
		t.Fatalf("dense: %d entries, %v", len(ents), err)
	}
	for i, e := range ents {
		name := "dense/" + e.Name()
		if e.Name() != "d"+string(rune('0'+i/100))+string(rune('0'+i/10%10))+string(rune('0'+i%10)) {
			t.Fatalf("entry %d: %s", i, e.Name())
		}
		if i%17 == 7 {
			checkFile(t, fsys, name, enc("<i2", float64(i)))
		}
	}
	if d := dataset(t, fsys, "dense/d007"); d.Shape != nil || d.DType.NumPy != "<i2" {
		t.Errorf("d007: %+v", d)
	}
	checkFile(t, fsys, "small/x", enc("<i2", 0, 1, 2))
	checkFile(t, fsys, "small/soft", enc("<i2", 0, 1, 2))
	checkFile(t, fsys, "small/temps", enc("<f4", 1.5, -2))
	small := group(t, fsys, "small")
	wantAttrs := map[string]any{"vlen_ascii": "hello", "vlen_utf8": "grüß", "fixed": "abc",
		"list": []any{[]any{0.0, 1.0, 2.0}, []any{3.0, 4.0, 5.0}}}
	if !reflect.DeepEqual(small.Attributes, wantAttrs) {
		t.Errorf("small attributes %#v", small.Attributes)
	}
	if len(small.Omitted) != 1 || small.Omitted[0].Name != "celsius" {
		t.Errorf("small omitted %+v", small.Omitted)
	}
	got := walk(t, fsys)
	for p, k := range map[string]string{"small/ext": "l", "small/soft": "f", "small/x": "f", "small/temps": "f",
		"ordered/zeta": "d", "ordered/alpha": "d", "ordered/mid": "d"} {
		if got[p] != k {
			t.Errorf("%s: %q, want %q", p, got[p], k)
		}
	}
	if _, ok := got["small/celsius"]; ok {
		t.Errorf("committed datatype listed")
	}
	ents, err = fs.ReadDir(fsys, "small")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "ext" {
			continue
		}
		info, _ := e.Info()
		if l, ok := unwrap(info.Sys()).(*hdf5adapter.ExternalLink); !ok || *l != (hdf5adapter.ExternalLink{File: "other.h5", Path: "/somewhere"}) {
			t.Errorf("ext: Sys %#v", unwrap(info.Sys()))
		}
	}
	if _, err := fs.Stat(fsys, "small/ext"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of an external link: %v", err)
	}
	if d := dataset(t, fsys, "small/temps"); d.DType.NumPy != "<f4" {
		t.Errorf("temps: %+v", d.DType)
	}
}

func TestChunkIndexV4(t *testing.T) {
	fsys := openFixture(t, "chunk_index_v4.hdf5")
	a := enc("<i4", arange(336)...)
	for name, index := range map[string]string{"single": "single", "implicit": "implicit", "farray": "fixed array", "btree2": "btree2"} {
		checkFile(t, fsys, name, a)
		if d := dataset(t, fsys, name); d.ChunkIndex != index {
			t.Errorf("%s: index %q, want %q", name, d.ChunkIndex, index)
		}
	}
	for name, index := range map[string]string{"single_gzip": "single", "farray_filt": "fixed array", "earray": "extensible array", "btree2_gzip": "btree2"} {
		if d := dataset(t, fsys, name); d.ChunkIndex != index || len(d.Filters) == 0 {
			t.Errorf("%s: index %q, want %q, filters %v", name, d.ChunkIndex, index, d.Filters)
		}
	}
	paged := make([]float64, 5120)
	for i := range paged {
		paged[i] = float64(i % 251)
	}
	checkFile(t, fsys, "farray_paged", enc("|u1", paged...))
	checkFile(t, fsys, "farray_max", enc("<i2", arange(30)...))
	if d := dataset(t, fsys, "farray_max"); !slices.Equal(d.MaxShape, []int64{8, 9}) {
		t.Errorf("farray_max: max shape %v", d.MaxShape)
	}
	checkFile(t, fsys, "earray_long", enc("<i2", arange(300)...))
	fp := make([]float64, 100)
	for i := range fp {
		fp[i] = -1.5
		if i/10 < 4 && i%10 < 4 {
			fp[i] = 7
		}
	}
	fp[99] = 9
	checkFile(t, fsys, "fill_partial", enc("<f4", fp...))
	if d := dataset(t, fsys, "fill_partial"); !bytes.Equal(d.Fill, enc("<f4", -1.5)) {
		t.Errorf("fill_partial: fill % x", d.Fill)
	}
	fe := make([]float64, 40)
	for i := range fe {
		fe[i] = -7
		if i/4 == 4 || i/4 == 5 {
			fe[i] = 5
		}
	}
	checkFile(t, fsys, "fill_earray", enc("<i8", fe...))
	nw := make([]float64, 25)
	for i := range nw {
		nw[i] = 42
	}
	checkFile(t, fsys, "never_written", enc("<u2", nw...))
	checkFile(t, fsys, "grown", enc("<i4", arange(12)...))
	if d := dataset(t, fsys, "grown"); !slices.Equal(d.MaxShape, []int64{-1, 9}) || !slices.Equal(d.Shape, []int64{3, 4}) {
		t.Errorf("grown: %v / %v", d.Shape, d.MaxShape)
	}
}

func TestEarliestExtra(t *testing.T) {
	fsys := openFixture(t, "earliest_extra.hdf5")
	for i := range 20 {
		name := "many/m" + string(rune('0'+i/10)) + string(rune('0'+i%10))
		checkFile(t, fsys, name, enc("<i4", float64(i), float64(-i)))
	}
	if v := group(t, fsys, "many").Attributes["note"]; v != "vlen utf8" {
		t.Errorf("note = %#v", v)
	}
	checkFile(t, fsys, "compact", enc("<u2", arange(6)...))
	if d := dataset(t, fsys, "compact"); d.Layout != "compact" {
		t.Errorf("compact: layout %q", d.Layout)
	}
	checkFile(t, fsys, "contig_unwritten", enc("<i4", -9, -9, -9, -9, -9, -9))
	cp := make([]float64, 36)
	for i := range cp {
		cp[i] = 11
		if r, c := i/6, i%6; r < 3 && c >= 3 {
			cp[i] = float64(r*3 + c - 3)
		}
	}
	checkFile(t, fsys, "chunk_partial", enc(">i4", cp...))
	if d := dataset(t, fsys, "chunk_partial"); d.DType.NumPy != ">i4" || !bytes.Equal(d.Fill, enc(">i4", 11)) {
		t.Errorf("chunk_partial: %+v", d)
	}
	checkFile(t, fsys, "fixed_str", []byte("ab\x00\x00cde\x00\x00\x00\x00\x00"))
	if d := dataset(t, fsys, "fixed_str"); d.DType.NumPy != "|S4" || d.DType.Padding != "nullpad" {
		t.Errorf("fixed_str: %+v", d.DType)
	}
	vs := dataset(t, fsys, "vlen_str")
	if vs.DType.Class != "vlen" || !vs.DType.VarString || vs.DType.Charset != "utf-8" || vs.DType.NumPy != "|O" {
		t.Errorf("vlen_str: %+v", vs.DType)
	}
	if _, err := fs.ReadFile(fsys, "vlen_str"); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("reading vlen_str: %v", err)
	}
	checkFile(t, fsys, "enum", []byte{0, 42, 1})
	en := dataset(t, fsys, "enum")
	members := map[string]int64{}
	for _, m := range en.DType.Members {
		members[m.Name] = m.Value
	}
	if en.DType.Class != "enum" || !reflect.DeepEqual(members, map[string]int64{"RED": 0, "GREEN": 1, "BLUE": 42}) || en.DType.NumPy != "|u1" {
		t.Errorf("enum: %+v", en.DType)
	}
	comp := append(append(append(enc("<i4", 1), enc("<f8", 0.5)...), enc("<i4", 2)...), enc("<f8", -1)...)
	checkFile(t, fsys, "compound", comp)
	cd := dataset(t, fsys, "compound")
	if cd.DType.NumPy != "|V12" || len(cd.DType.Fields) != 2 || cd.DType.Fields[1].Name != "y" || cd.DType.Fields[1].Offset != 4 {
		t.Errorf("compound: %+v", cd.DType)
	}
	checkFile(t, fsys, "scalar", enc("<f8", 3.25))
	if d := dataset(t, fsys, "scalar"); d.Shape != nil || d.Null {
		t.Errorf("scalar: %+v", d)
	}
	if d := dataset(t, fsys, "empty"); !d.Null {
		t.Errorf("empty: %+v", d)
	}
	if b, err := fs.ReadFile(fsys, "empty"); err != nil || len(b) != 0 {
		t.Errorf("empty: %q, %v", b, err)
	}
	checkFile(t, fsys, "soft_to_compact", enc("<u2", arange(6)...))
	checkFile(t, fsys, "temps", enc(">f8", 273.15, 0))
	if d := dataset(t, fsys, "temps"); d.DType.NumPy != ">f8" {
		t.Errorf("temps: %+v", d.DType)
	}
	got := walk(t, fsys)
	if got["many/up"] != "l" || got["kelvin"] != "" {
		t.Errorf("many/up %q, kelvin %q", got["many/up"], got["kelvin"])
	}
	// The cycle link is followed by name: many/up is the root group.
	if g := group(t, fsys, "many/up"); g.Address != group(t, fsys, ".").Address {
		t.Errorf("many/up is %+v", g)
	}
	checkFile(t, fsys, "many/up/many/up/compact", enc("<u2", arange(6)...))
}

func TestOffsets4(t *testing.T) {
	fsys := openFixture(t, "offsets4.hdf5")
	checkFile(t, fsys, "g/contig", enc("<i8", arange(5)...))
	if v := group(t, fsys, "g").Attributes["s"]; v != "vlen" {
		t.Errorf("s = %#v", v)
	}
	if d := dataset(t, fsys, "g/chunked"); !slices.Equal(d.ChunkShape, []int64{2, 4}) || d.DType.NumPy != "<u4" {
		t.Errorf("g/chunked: %+v", d)
	}
}
