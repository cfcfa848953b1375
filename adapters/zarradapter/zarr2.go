package zarradapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs/driver"
)

type zarray struct {
	ZarrFormat *int              `json:"zarr_format"`
	Shape      []int64           `json:"shape"`
	Chunks     []int64           `json:"chunks"`
	DType      json.RawMessage   `json:"dtype"`
	Compressor json.RawMessage   `json:"compressor"`
	FillValue  json.RawMessage   `json:"fill_value"`
	Order      string            `json:"order"`
	Filters    []json.RawMessage `json:"filters"`
	Separator  string            `json:"dimension_separator"`
}

// zarr2 describes a Zarr v2 node: .zarray, else .zgroup, else (a group
// with only attributes) .zattrs.
func (d *describer) zarr2(name string) (*array.Node, error) {
	n := &array.Node{Format: FormatZarr2, Path: name, Attributes: json.RawMessage("{}")}
	attrs, err := d.ReadFile(path.Join(name, ".zattrs"))
	hasAttrs := err == nil
	switch {
	case err == nil:
		if !json.Valid(attrs) {
			return nil, driver.Corruptf("%s/.zattrs: invalid JSON", name)
		}
		n.Attributes = attrs
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	var za zarray
	_, err = d.ReadJSON(path.Join(name, ".zarray"), &za)
	if err == nil {
		n.IsArray = true
		if n.Array, err = d.zarr2Array(name, &za, n.Attributes); err != nil {
			return nil, fmt.Errorf("%s/.zarray: %w", name, err)
		}
		return n, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var zg struct {
		ZarrFormat int `json:"zarr_format"`
	}
	_, err = d.ReadJSON(path.Join(name, ".zgroup"), &zg)
	switch {
	case err == nil:
		if zg.ZarrFormat != 2 {
			return nil, driver.Corruptf("%s/.zgroup: zarr_format %d", name, zg.ZarrFormat)
		}
	case errors.Is(err, fs.ErrNotExist):
		if !hasAttrs {
			return nil, fmt.Errorf("%s: no .zarray, .zgroup or .zattrs: %w", name, fs.ErrNotExist)
		}
	default:
		return nil, err
	}
	if d.Children {
		n.Children, err = d.Subdirs(name, ".zarray", ".zgroup")
		if err != nil {
			// An unlistable store: the consolidated metadata, if any.
			kids, cerr := d.zarr2Consolidated(name)
			switch {
			case cerr == nil:
				n.Children, n.Consolidated = kids, true
			case errors.Is(cerr, fs.ErrNotExist):
				return nil, err
			default:
				return nil, cerr
			}
		}
	}
	return n, nil
}

// zarr2Consolidated lists the children of group name from .zmetadata at
// the store's root; an error matching fs.ErrNotExist when there is none.
func (d *describer) zarr2Consolidated(name string) ([]string, error) {
	var zm struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if _, err := d.ReadJSON(".zmetadata", &zm); err != nil {
		return nil, err
	}
	prefix := ""
	if name != "." {
		prefix = name + "/"
	}
	var kids []string
	for k := range zm.Metadata {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		child, meta, ok := strings.Cut(rest, "/")
		if ok && (meta == ".zarray" || meta == ".zgroup") && !slices.Contains(kids, child) {
			kids = append(kids, child)
		}
	}
	slices.Sort(kids)
	return kids, nil
}

func (d *describer) zarr2Array(name string, za *zarray, attrs json.RawMessage) (*array.Array, error) {
	if za.ZarrFormat == nil || *za.ZarrFormat != 2 {
		return nil, driver.Corruptf("zarr_format is not 2")
	}
	var ts string
	if err := json.Unmarshal(za.DType, &ts); err != nil {
		return nil, array.Unsupported("structured dtype %s", za.DType)
	}
	dt, big, err := parseTypestr(ts)
	if err != nil {
		return nil, err
	}
	a := &array.Array{Shape: za.Shape, ChunkShape: za.Chunks, DType: dt, FillValue: za.FillValue, Order: za.Order}
	if a.Shape == nil {
		a.Shape = []int64{}
	}
	if a.ChunkShape == nil {
		a.ChunkShape = []int64{}
	}
	if err := array.CheckGrid(a.Shape, a.ChunkShape, dt.Size, d.Lim); err != nil {
		return nil, err
	}
	switch za.Order {
	case "C", "F":
	case "":
		a.Order = "C"
	default:
		return nil, driver.Corruptf("order %q", za.Order)
	}
	sep := za.Separator
	switch sep {
	case "":
		sep = "."
	case ".", "/":
	default:
		return nil, driver.Corruptf("dimension_separator %q", sep)
	}
	a.KeyEncoding = "v2 " + sep
	if dt.Kind != 'O' {
		if a.Fill, err = parseFill(za.FillValue, dt, true); err != nil {
			return nil, err
		}
	}
	r := &zarr2Reader{a: a, sep: sep, big: big}
	for _, raw := range za.Filters {
		f, err := parseFilter(raw, dt)
		if err != nil {
			return nil, err
		}
		r.filters = append(r.filters, f)
		a.Codecs = append(a.Codecs, array.Codec{Name: f.id, Config: raw})
	}
	if s := strings.TrimSpace(string(za.Compressor)); s != "" && s != "null" {
		c, err := parseCompressor(za.Compressor)
		if err != nil {
			return nil, err
		}
		r.compressor = c
		a.Codecs = append(a.Codecs, array.Codec{Name: c.id, Config: za.Compressor})
	}
	if a.Codecs == nil {
		a.Codecs = []array.Codec{}
	}
	var hint struct {
		Dims []string `json:"_ARRAY_DIMENSIONS"`
	}
	if json.Unmarshal(attrs, &hint) == nil && len(hint.Dims) == len(a.Shape) {
		a.DimensionNames = hint.Dims
	}
	a.Reader = r
	return a, nil
}

// A bytesCodec decodes whole chunks: a compressor, or a filter that works
// on bytes. max bounds its output.
type bytesCodec struct {
	id     string
	decode func(src []byte, max int) ([]byte, error)
}

// parseCompressor returns the decoder of a Zarr v2 compressor or a
// numcodecs bytes-to-bytes codec.
func parseCompressor(raw json.RawMessage) (bytesCodec, error) {
	var c struct {
		ID     string `json:"id"`
		Format *int   `json:"format"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return bytesCodec{}, driver.Corruptf("compressor %s: %v", raw, err)
	}
	return compressorByName(c.ID, c.Format)
}

func compressorByName(id string, format *int) (bytesCodec, error) {
	var f func([]byte, int) ([]byte, error)
	switch id {
	case "zlib":
		f = arraycodec.Zlib
	case "gzip":
		f = arraycodec.Gzip
	case "bz2":
		f = arraycodec.Bzip2
	case "zstd":
		f = arraycodec.Zstd
	case "lz4":
		f = arraycodec.LZ4
	case "blosc":
		f = arraycodec.Blosc
	case "lzma":
		switch {
		case format == nil || *format == 1:
			f = arraycodec.XZComplete
		case *format == 2:
			f = arraycodec.LZMA
		default:
			return bytesCodec{}, array.Unsupported("codec lzma with format %d", *format)
		}
	case "crc32c":
		f = func(b []byte, _ int) ([]byte, error) { return arraycodec.CRC32C(b) }
	case "crc32":
		f = func(b []byte, _ int) ([]byte, error) {
			return arraycodec.CRC32Prefix("crc32", b, crc32.ChecksumIEEE)
		}
	case "adler32":
		f = func(b []byte, _ int) ([]byte, error) {
			return arraycodec.CRC32Prefix("adler32", b, adler32.Checksum)
		}
	default:
		return bytesCodec{}, array.Unsupported("codec %q is not supported", id)
	}
	return bytesCodec{id: id, decode: f}, nil
}

// A filter is a Zarr v2 filter (or numcodecs array codec) on a chunk's
// bytes. decode reverses it; the result is in the filter's dtype.
type filter struct {
	id     string
	decode func(src []byte, max int) ([]byte, error)
	// object marks filters that make object arrays (vlen-utf8,
	// vlen-bytes, json2, ...).
	object bool
}

// numType is a numeric NumPy type for filters.
type numType struct {
	kind byte // i u f b
	size int
	big  bool
}

func parseNum(ts string) (numType, error) {
	if d, ok := array.Numeric(ts); ok && d.Kind != 'c' {
		return numType{kind: d.Kind, size: d.Size}, nil
	}
	d, big, err := parseTypestr(ts)
	if err != nil {
		return numType{}, err
	}
	switch d.Kind {
	case 'i', 'u', 'f', 'b', 'M', 'm':
	default:
		return numType{}, array.Unsupported("filter dtype %q", ts)
	}
	k := d.Kind
	if k == 'M' || k == 'm' {
		k = 'i'
	}
	return numType{kind: k, size: d.Size, big: big}, nil
}

// values decodes the elements of b as float64 (floats) or as int64 bits.
func (t numType) get(b []byte, i int) (float64, uint64) {
	e := b[i*t.size : (i+1)*t.size]
	if t.big {
		var tmp [8]byte
		for j := range e {
			tmp[len(e)-1-j] = e[j]
		}
		e = tmp[:len(e)]
	}
	u := getUint(e)
	switch t.kind {
	case 'f':
		return getFloat(e), u
	case 'i':
		shift := 64 - 8*uint(t.size)
		return float64(int64(u<<shift) >> shift), u
	}
	return float64(u), u
}

func (t numType) put(b []byte, i int, f float64, u uint64, useFloat bool) {
	e := b[i*t.size : (i+1)*t.size]
	switch {
	case t.kind == 'f':
		putFloat(e, f)
	case useFloat:
		if math.IsNaN(f) {
			f = 0
		}
		if t.kind == 'u' {
			putUint(e, uint64(f))
		} else {
			putUint(e, uint64(int64(f)))
		}
	default:
		putUint(e, u)
	}
	if t.big {
		array.SwapUnits(e, t.size)
	}
}

func parseFilter(raw json.RawMessage, dt array.DType) (filter, error) {
	var c struct {
		ID          string  `json:"id"`
		ElementSize int     `json:"elementsize"`
		DType       string  `json:"dtype"`
		AsType      string  `json:"astype"`
		Scale       float64 `json:"scale"`
		Offset      float64 `json:"offset"`
		EncodeDType string  `json:"encode_dtype"`
		DecodeDType string  `json:"decode_dtype"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return filter{}, driver.Corruptf("filter %s: %v", raw, err)
	}
	c.ID = strings.TrimPrefix(c.ID, "numcodecs.")
	f := filter{id: c.ID}
	switch c.ID {
	case "shuffle":
		es := c.ElementSize
		f.decode = func(b []byte, _ int) ([]byte, error) { return arraycodec.Unshuffle(b, es), nil }
	case "bitround":
		f.decode = func(b []byte, _ int) ([]byte, error) { return b, nil }
	case "delta":
		if c.AsType == "" {
			c.AsType = c.DType
		}
		from, err := parseNum(c.AsType)
		if err != nil {
			return f, err
		}
		to, err := parseNum(c.DType)
		if err != nil {
			return f, err
		}
		f.decode = func(b []byte, _ int) ([]byte, error) { return deltaDecode(b, from, to) }
	case "fixedscaleoffset", "quantize", "astype":
		from, to := c.AsType, c.DType
		if c.ID == "astype" {
			from, to = c.EncodeDType, c.DecodeDType
		}
		if from == "" {
			from = to
		}
		ft, err := parseNum(from)
		if err != nil {
			return f, err
		}
		tt, err := parseNum(to)
		if err != nil {
			return f, err
		}
		scale, offset := c.Scale, c.Offset
		if c.ID != "fixedscaleoffset" {
			scale, offset = 1, 0
		}
		if scale == 0 {
			return f, driver.Corruptf("fixedscaleoffset: scale 0")
		}
		f.decode = func(b []byte, _ int) ([]byte, error) { return scaleDecode(b, ft, tt, scale, offset) }
	case "crc32", "adler32", "crc32c":
		bc, err := compressorByName(c.ID, nil)
		if err != nil {
			return f, err
		}
		f.decode = bc.decode
	case "vlen-utf8", "vlen-bytes", "json2", "msgpack2", "vlen-array", "pickle", "categorize", "packbits":
		f.object = true
		f.decode = func([]byte, int) ([]byte, error) {
			return nil, array.Unsupported("filter %q: variable-length elements have no raw form", c.ID)
		}
		if c.ID == "pickle" || c.ID == "msgpack2" || c.ID == "vlen-array" || c.ID == "categorize" || c.ID == "packbits" {
			return f, array.Unsupported("filter %q is not supported", c.ID)
		}
	default:
		return f, array.Unsupported("filter %q is not supported", c.ID)
	}
	return f, nil
}

// deltaDecode undoes numcodecs Delta: elements of type from, running sum
// in type to (integers wrap).
func deltaDecode(b []byte, from, to numType) ([]byte, error) {
	if len(b)%from.size != 0 {
		return nil, driver.Corruptf("delta: %d bytes of %d-byte elements", len(b), from.size)
	}
	n := len(b) / from.size
	out := make([]byte, n*to.size)
	var fs float64
	var us uint64
	for i := 0; i < n; i++ {
		f, u := from.get(b, i)
		if from.kind == 'f' && to.kind != 'f' {
			u = uint64(int64(f))
		}
		fs += f
		us += u
		to.put(out, i, fs, us, false)
	}
	return out, nil
}

// scaleDecode undoes FixedScaleOffset (and astype casts): v/scale +
// offset computed in float64, converted to type to.
func scaleDecode(b []byte, from, to numType, scale, offset float64) ([]byte, error) {
	if len(b)%from.size != 0 {
		return nil, driver.Corruptf("fixedscaleoffset: %d bytes of %d-byte elements", len(b), from.size)
	}
	n := len(b) / from.size
	out := make([]byte, n*to.size)
	for i := 0; i < n; i++ {
		f, _ := from.get(b, i)
		v := f/scale + offset
		to.put(out, i, v, 0, true)
	}
	return out, nil
}

// zarr2Reader reads Zarr v2 chunks.
type zarr2Reader struct {
	a          *array.Array
	sep        string
	big        bool
	compressor bytesCodec
	filters    []filter
}

func (r *zarr2Reader) ChunkKey(coord []int64) (string, []int64, error) {
	if len(coord) == 0 {
		return "0", nil, nil
	}
	return array.JoinInts(coord, r.sep), nil, nil
}

func (r *zarr2Reader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	a := r.a
	if a.DType.Variable() {
		return nil, false, array.Unsupported("%s elements have no raw form", a.DType.Name)
	}
	key, _, _ := r.ChunkKey(coord)
	src, err := array.ReadFile(ctx, a.Store(), key, a.Limits().MaxChunk)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	want := a.ChunkBytes()
	data := src
	if r.compressor.decode != nil {
		if data, err = r.compressor.decode(src, int(a.Limits().MaxChunk)); err != nil {
			return nil, false, fmt.Errorf("chunk %s: %s: %w", key, r.compressor.id, err)
		}
	}
	for i := len(r.filters) - 1; i >= 0; i-- {
		f := r.filters[i]
		if data, err = f.decode(data, int(a.Limits().MaxChunk)); err != nil {
			return nil, false, fmt.Errorf("chunk %s: filter %s: %w", key, f.id, err)
		}
	}
	if int64(len(data)) != want {
		return nil, false, driver.Corruptf("chunk %s: decodes to %d bytes, want %d", key, len(data), want)
	}
	if r.big {
		array.SwapUnits(data, a.DType.Unit)
	}
	if a.Order == "F" && len(a.ChunkShape) > 1 {
		data = array.FortranToC(data, a.ChunkShape, a.DType.Size)
	}
	return data, true, nil
}
