package zarradapter_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs/driver"
)

// The string arrays of the fixtures and their values, from the
// fixtures' PROVENANCE.md files.
var (
	zarr2Strings = map[string][]string{
		"3d.chunked.O":          {"a", "aa", "aaa", "aaaa", "b", "bb", "bbb", "bbbb"},
		"1d.contiguous.json2.O": {"foo", "bar", "baz", "qux"},
		"1d.contiguous.U13.le":  {"a", "b", "cc", "d"},
		"1d.contiguous.U13.be":  {"a", "b", "cc", "d"},
		"1d.contiguous.U7":      {"a", "b", "cc", "d"},
		"2d.chunked.U7":         {"a", "b", "cc", "d"},
		"1d.contiguous.S7":      {"a", "b", "cc", "d"},
	}
	zarr3Strings = map[string][]string{
		"1d.contiguous.string.vlen":       {"hello", "world", "zarr", "v3"},
		"1d.chunked.string.vlen":          {"a", "bb", "ccc", "dddd"},
		"2d.chunked.string.vlen":          {"hello", "world", "foo", "bar"},
		"1d.string.empty":                 {"", "test", ""},
		"1d.string.unicode":               {"hello", "世界", "🚀🎉", "Ñoño"},
		"1d.contiguous.string.compressed": {"compressed", "string", "test"},
	}
)

func readAllStrings(t *testing.T, pipeline string) []string {
	t.Helper()
	ctx := context.Background()
	a, fsys, err := array.OpenArray(ctx, pipeline, "", nil)
	if err != nil {
		t.Fatalf("OpenArray(%s): %v", pipeline, err)
	}
	defer fsys.Close()
	if !a.IsStrings() {
		t.Errorf("%s: IsStrings() = false", pipeline)
	}
	got, err := a.ReadStrings(ctx, make([]int64, len(a.Shape)), a.Shape, 1<<20)
	if err != nil {
		t.Fatalf("ReadStrings(%s): %v", pipeline, err)
	}
	return got
}

func TestStringFixtures(t *testing.T) {
	roots := []struct {
		format string
		bases  []string
		want   map[string][]string
	}{
		{"zarr2", []string{
			"file:" + fixture(t, "zarr2/data.zarr") + "/",
			"file:" + fixture(t, "zarr2/data.zipped_from_within.zarr.zip") + "|zip:",
		}, zarr2Strings},
		{"zarr3", []string{
			"file:" + fixture(t, "zarr3/data.zarr") + "/",
			"file:" + fixture(t, "zarr3/data.zipped_from_parent.zarr.zip") + "|zip:data.zarr/",
			"file:" + fixture(t, "zarr3/data.uncompressed.zarr.zip") + "|zip:",
		}, zarr3Strings},
	}
	for _, r := range roots {
		for _, base := range r.bases {
			for name, want := range r.want {
				p := base + "|" + r.format + ":" + name
				if got := readAllStrings(t, p); !slices.Equal(got, want) {
					t.Errorf("%s = %q, want %q", p, got, want)
				}
			}
		}
	}
}

func TestStringBox(t *testing.T) {
	ctx := context.Background()
	a, fsys, err := array.OpenArray(ctx, "file:"+fixture(t, "zarr2/data.zarr")+"/|zarr2:3d.chunked.O", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	// The box 0:2, 1, 1:2.
	got, err := a.ReadStrings(ctx, []int64{0, 1, 1}, []int64{2, 2, 2}, 0)
	if want := []string{"aaaa", "bbbb"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("box = %q, %v; want %q", got, err, want)
	}
	// Errors: a box outside the shape, a limit too small.
	if _, err := a.ReadStrings(ctx, []int64{0, 0, 0}, []int64{3, 2, 2}, 0); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("box outside: %v, want ErrInvalid", err)
	}
	if _, err := a.ReadStrings(ctx, []int64{0, 0, 0}, a.Shape, 8*16+20); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("small limit: %v, want ErrLimit", err)
	}
}

func TestStringsNotStrings(t *testing.T) {
	ctx := context.Background()
	a, fsys, err := array.OpenArray(ctx, "file:"+fixture(t, "zarr3/data.zarr")+"/|zarr3:1d.contiguous.i4", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if a.IsStrings() {
		t.Error("int32 IsStrings() = true")
	}
	if _, err := a.ReadStrings(ctx, []int64{0}, a.Shape, 0); !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), "int32") {
		t.Errorf("ReadStrings(int32) = %v, want ErrInvalid naming int32", err)
	}
}

// vlen encodes items in the numcodecs vlen layout.
func vlen(items ...string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(items)))
	for _, s := range items {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

func v3StringMeta(shape, chunk, codecs, fill string) string {
	return `{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"string",
 "chunk_grid":{"name":"regular","configuration":{"chunk_shape":` + chunk + `}},
 "chunk_key_encoding":{"name":"default"},"fill_value":` + fill + `,"codecs":` + codecs + `}`
}

func readMapStrings(t *testing.T, files map[string]string, limit int64) ([]string, error) {
	t.Helper()
	n, err := openMap(t, files)
	if err != nil {
		return nil, err
	}
	a := n.Array
	return a.ReadStrings(context.Background(), make([]int64, len(a.Shape)), a.Shape, limit)
}

func TestStringLayouts(t *testing.T) {
	inner := `[{"name":"sharding_indexed","configuration":{"chunk_shape":[1],"codecs":["vlen-utf8"]}}`
	sh := shard([][]byte{vlen("a"), nil, vlen("c"), vlen("🚀")}, nil)
	crc := binary.LittleEndian.AppendUint32(append([]byte(nil), sh...), crc32.Checksum(sh, crc32.MakeTable(crc32.Castagnoli)))
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"missing chunk is fill", map[string]string{
			"zarr.json": v3StringMeta("[4]", "[2]", `["vlen-utf8"]`, `"x"`),
			"c/1":       string(vlen("c", "d")),
		}, []string{"x", "x", "c", "d"}},
		{"edge chunk cropped", map[string]string{
			"zarr.json": v3StringMeta("[3]", "[2]", `["vlen-utf8"]`, `""`),
			"c/0":       string(vlen("a", "b")),
			"c/1":       string(vlen("c", "pad")),
		}, []string{"a", "b", "c"}},
		{"transpose", map[string]string{
			"zarr.json": v3StringMeta("[2,3]", "[2,3]", `[{"name":"transpose","configuration":{"order":[1,0]}},"vlen-utf8"]`, `""`),
			"c/0/0":     string(vlen("a", "d", "b", "e", "c", "f")),
		}, []string{"a", "b", "c", "d", "e", "f"}},
		{"sharded", map[string]string{
			"zarr.json": v3StringMeta("[4]", "[4]", inner+`]`, `"-"`),
			"c/0":       string(sh),
		}, []string{"a", "-", "c", "🚀"}},
		{"sharded under crc32c", map[string]string{
			"zarr.json": v3StringMeta("[4]", "[4]", inner+`,"crc32c"]`, `"-"`),
			"c/0":       string(crc),
		}, []string{"a", "-", "c", "🚀"}},
		{"zarr2 order F", map[string]string{
			".zarray": `{"zarr_format":2,"shape":[2,3],"chunks":[2,3],"dtype":"|O","compressor":null,
 "fill_value":0,"order":"F","filters":[{"id":"vlen-utf8"}]}`,
			"0.0": string(vlen("a", "d", "b", "e", "c", "f")),
		}, []string{"a", "b", "c", "d", "e", "f"}},
		{"zarr2 vlen-bytes, missing chunk", map[string]string{
			".zarray": `{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"|O","compressor":{"id":"zlib"},
 "fill_value":null,"order":"C","filters":[{"id":"vlen-bytes"}]}`,
		}, []string{"", "", "", ""}},
	} {
		got, err := readMapStrings(t, c.files, 1<<16)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestStringCorrupt(t *testing.T) {
	meta := v3StringMeta("[2]", "[2]", `["vlen-utf8"]`, `""`)
	good := vlen("ab", "c")
	for name, chunk := range map[string][]byte{
		"truncated":   good[:len(good)-1],
		"count":       vlen("a"),
		"huge count":  {0xff, 0xff, 0xff, 0x7f, 1, 0, 0, 0},
		"huge length": append(binary.LittleEndian.AppendUint32([]byte{2, 0, 0, 0}, 1<<31), 'a'),
		"utf8":        vlen("\xff", "a"),
		"empty":       {},
	} {
		_, err := readMapStrings(t, map[string]string{"zarr.json": meta, "c/0": string(chunk)}, 1<<16)
		if !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	// A chunk larger than the limit is refused before it is decoded.
	big := vlen(strings.Repeat("a", 1000), "b")
	if _, err := readMapStrings(t, map[string]string{"zarr.json": meta, "c/0": string(big)}, 512); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("chunk past the limit: %v, want ErrLimit", err)
	}
}

// FuzzReadStrings: any chunk bytes, plain or zstd-framed, give strings or
// an error, never a panic, and never more bytes than the limit.
func FuzzReadStrings(f *testing.F) {
	f.Add(vlen("ab", "c"), false)
	f.Add(vlen("a"), true)
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f}, false)
	const limit = 1 << 12
	f.Fuzz(func(t *testing.T, chunk []byte, zstd bool) {
		codecs := `["vlen-utf8"]`
		if zstd {
			codecs = `["vlen-utf8","zstd"]`
		}
		meta := v3StringMeta("[2]", "[2]", codecs, `""`)
		got, err := readMapStrings(t, map[string]string{"zarr.json": meta, "c/0": string(chunk)}, limit)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) {
				t.Fatalf("error %v matches neither ErrCorrupt nor ErrLimit", err)
			}
			return
		}
		n := 0
		for _, s := range got {
			n += len(s)
		}
		if len(got) != 2 || n > limit {
			t.Fatalf("%d strings of %d bytes", len(got), n)
		}
	})
}
