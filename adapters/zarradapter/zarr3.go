package zarradapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// zarrJSON is a Zarr v3 zarr.json document.
type zarrJSON struct {
	ZarrFormat          int                        `json:"zarr_format"`
	NodeType            string                     `json:"node_type"`
	Attributes          json.RawMessage            `json:"attributes"`
	Shape               []int64                    `json:"shape"`
	DataType            json.RawMessage            `json:"data_type"`
	ChunkGrid           json.RawMessage            `json:"chunk_grid"`
	ChunkKeyEncoding    json.RawMessage            `json:"chunk_key_encoding"`
	FillValue           json.RawMessage            `json:"fill_value"`
	Codecs              []json.RawMessage          `json:"codecs"`
	DimensionNames      []*string                  `json:"dimension_names"`
	StorageTransformers []json.RawMessage          `json:"storage_transformers"`
	Consolidated        *consolidated              `json:"consolidated_metadata"`
	rest                map[string]json.RawMessage // every key, for the unknown-key check
}

type consolidated struct {
	Kind     string                     `json:"kind"`
	Metadata map[string]json.RawMessage `json:"metadata"`
}

// knownV3 are the zarr.json keys this package understands.
var knownV3 = []string{"zarr_format", "node_type", "attributes", "shape", "data_type", "chunk_grid",
	"chunk_key_encoding", "fill_value", "codecs", "dimension_names", "storage_transformers", "consolidated_metadata"}

func parseZarrJSON(name string, b []byte) (*zarrJSON, error) {
	var z zarrJSON
	if err := json.Unmarshal(b, &z); err != nil {
		return nil, driver.Corruptf("%s: %v", name, err)
	}
	if err := json.Unmarshal(b, &z.rest); err != nil {
		return nil, driver.Corruptf("%s: %v", name, err)
	}
	if z.ZarrFormat != 3 {
		return nil, driver.Corruptf("%s: zarr_format %d, want 3", name, z.ZarrFormat)
	}
	for k, v := range z.rest {
		if slices.Contains(knownV3, k) {
			continue
		}
		var ext struct {
			MustUnderstand *bool `json:"must_understand"`
		}
		if json.Unmarshal(v, &ext) == nil && ext.MustUnderstand != nil && !*ext.MustUnderstand {
			continue
		}
		return nil, array.Unsupported("%s: unknown key %q", name, k)
	}
	return &z, nil
}

// zarr3 describes a Zarr v3 node from its zarr.json.
func (d *describer) zarr3(name string) (*array.Node, error) {
	meta := path.Join(name, "zarr.json")
	b, err := d.ReadFile(meta)
	if err != nil {
		return nil, err
	}
	z, err := parseZarrJSON(meta, b)
	if err != nil {
		return nil, err
	}
	n := &array.Node{Format: FormatZarr3, Path: name, Attributes: z.Attributes}
	if len(n.Attributes) == 0 || string(n.Attributes) == "null" {
		n.Attributes = json.RawMessage("{}")
	}
	switch z.NodeType {
	case "array":
		n.IsArray = true
		if n.Array, err = d.zarr3Array(z); err != nil {
			return nil, fmt.Errorf("%s: %w", meta, err)
		}
	case "group":
		if !d.Children {
			break
		}
		if c := z.Consolidated; c != nil && c.Kind == "inline" {
			for k := range c.Metadata {
				if !strings.Contains(k, "/") {
					n.Children = append(n.Children, k)
				}
			}
			slices.Sort(n.Children)
			n.Consolidated = true
		} else if n.Children, err = d.Subdirs(name, "zarr.json"); err != nil {
			return nil, err
		}
	default:
		return nil, driver.Corruptf("%s: node_type %q", meta, z.NodeType)
	}
	return n, nil
}

// named is a Zarr v3 extension point: a name and its configuration.
type named struct {
	Name           string          `json:"name"`
	Config         json.RawMessage `json:"configuration"`
	MustUnderstand *bool           `json:"must_understand"`
}

// decode reads n's configuration into v. An absent or null configuration
// leaves v as it is; one that does not decode into v is corrupt metadata.
func (n named) decode(v any) error {
	if len(n.Config) == 0 || string(n.Config) == "null" {
		return nil
	}
	if err := json.Unmarshal(n.Config, v); err != nil {
		return driver.Corruptf("%s configuration: %v", n.Name, err)
	}
	return nil
}

func parseNamed(raw json.RawMessage) (named, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return named{Name: s}, nil
	}
	var n named
	if err := json.Unmarshal(raw, &n); err != nil || n.Name == "" {
		return n, driver.Corruptf("extension %s", raw)
	}
	return n, nil
}

func (d *describer) zarr3Array(z *zarrJSON) (*array.Array, error) {
	dt, err := parseV3DType(z.DataType)
	if err != nil {
		return nil, err
	}
	for _, st := range z.StorageTransformers {
		n, _ := parseNamed(st)
		return nil, array.Unsupported("storage transformer %q", n.Name)
	}
	grid, err := parseNamed(z.ChunkGrid)
	if err != nil {
		return nil, err
	}
	if grid.Name != "regular" {
		return nil, array.Unsupported("chunk grid %q", grid.Name)
	}
	var gc struct {
		ChunkShape []int64 `json:"chunk_shape"`
	}
	if err := json.Unmarshal(grid.Config, &gc); err != nil {
		return nil, driver.Corruptf("chunk_grid: %v", err)
	}
	a := &array.Array{Shape: z.Shape, ChunkShape: gc.ChunkShape, DType: dt, FillValue: z.FillValue}
	if a.Shape == nil {
		a.Shape = []int64{}
	}
	if a.ChunkShape == nil {
		a.ChunkShape = []int64{}
	}
	if err := array.CheckGrid(a.Shape, a.ChunkShape, dt.Size, d.Lim); err != nil {
		return nil, err
	}
	if z.DimensionNames != nil {
		if len(z.DimensionNames) != len(a.Shape) {
			return nil, driver.Corruptf("%d dimension_names for %d dimensions", len(z.DimensionNames), len(a.Shape))
		}
		a.DimensionNames = make([]string, len(a.Shape))
		for i, s := range z.DimensionNames {
			if s != nil {
				a.DimensionNames[i] = *s
			}
		}
	}
	enc := named{Name: "default"}
	if len(z.ChunkKeyEncoding) > 0 {
		if enc, err = parseNamed(z.ChunkKeyEncoding); err != nil {
			return nil, err
		}
	}
	var ec struct {
		Separator string `json:"separator"`
	}
	if len(enc.Config) > 0 {
		if err := json.Unmarshal(enc.Config, &ec); err != nil {
			return nil, driver.Corruptf("chunk_key_encoding: %v", err)
		}
	}
	r := &zarr3Reader{a: a}
	switch enc.Name {
	case "default":
		r.sep, r.prefix = "/", "c"
	case "v2":
		r.sep = "."
	default:
		return nil, array.Unsupported("chunk key encoding %q", enc.Name)
	}
	switch ec.Separator {
	case "":
	case "/", ".":
		r.sep = ec.Separator
	default:
		return nil, driver.Corruptf("chunk key separator %q", ec.Separator)
	}
	a.KeyEncoding = enc.Name + " " + r.sep
	if !dt.Variable() {
		if a.Fill, err = parseFill(z.FillValue, dt, true); err != nil {
			return nil, err
		}
	}
	for _, raw := range z.Codecs {
		n, err := parseNamed(raw)
		if err != nil {
			return nil, err
		}
		a.Codecs = append(a.Codecs, array.Codec{Name: n.Name, Config: n.Config})
	}
	if r.chain, err = parseChain(z.Codecs, dt, d.Lim); err != nil {
		return nil, err
	}
	r.chain.fill = a.Fill
	if sh := r.chain.shard; sh != nil {
		// The read grid is the inner chunks: the shard must hold a whole
		// number of them.
		a.ShardShape = a.ChunkShape
		if len(sh.inner) != len(a.ShardShape) {
			return nil, driver.Corruptf("sharding: inner chunk shape %v for shard shape %v", sh.inner, a.ShardShape)
		}
		for i := range sh.inner {
			if sh.inner[i] <= 0 || a.ShardShape[i]%sh.inner[i] != 0 {
				return nil, driver.Corruptf("sharding: inner chunk shape %v does not divide shard shape %v", sh.inner, a.ShardShape)
			}
		}
		a.ChunkShape = sh.inner
		if err := sh.setShape(a.ShardShape, d.Lim); err != nil {
			return nil, err
		}
		r.shards = newIndexCache()
	}
	a.Reader = r
	if r.chain.shard != nil && len(r.chain.aa) == 0 && len(r.chain.bb) == 0 && !dt.Variable() {
		a.Reader = shardedReader{r}
	}
	return a, nil
}

// parseV3DType parses a Zarr v3 data_type.
func parseV3DType(raw json.RawMessage) (array.DType, error) {
	n, err := parseNamed(raw)
	if err != nil {
		return array.DType{}, err
	}
	if d, ok := array.Numeric(n.Name); ok {
		d.Stored = n.Name
		return d, nil
	}
	var c struct {
		LengthBytes int    `json:"length_bytes"`
		Unit        string `json:"unit"`
	}
	if err := n.decode(&c); err != nil {
		return array.DType{}, err
	}
	d := array.DType{Stored: n.Name}
	switch n.Name {
	case "string":
		d.Name, d.Kind = "string", 'O'
	case "bytes", "variable_length_bytes":
		d.Name, d.Kind = "bytes", 'O'
	case "fixed_length_utf32":
		if c.LengthBytes <= 0 || c.LengthBytes%4 != 0 {
			return d, driver.Corruptf("fixed_length_utf32: length_bytes %d", c.LengthBytes)
		}
		d.Name, d.Size, d.Kind, d.Unit = fmt.Sprintf("fixed_length_utf32[%d]", c.LengthBytes/4), c.LengthBytes, 'U', 4
	case "null_terminated_bytes", "raw_bytes":
		if c.LengthBytes <= 0 {
			return d, driver.Corruptf("%s: length_bytes %d", n.Name, c.LengthBytes)
		}
		d.Name, d.Size, d.Kind, d.Unit = fmt.Sprintf("bytes[%d]", c.LengthBytes), c.LengthBytes, 'S', 1
	case "numpy.datetime64", "numpy.timedelta64":
		k := byte('M')
		base := "datetime64"
		if n.Name == "numpy.timedelta64" {
			k, base = 'm', "timedelta64"
		}
		d.Name, d.Size, d.Kind, d.Unit = base+"["+c.Unit+"]", 8, k, 8
	default:
		if len(n.Name) > 1 && n.Name[0] == 'r' {
			var bitsN int
			if _, err := fmt.Sscanf(n.Name, "r%d", &bitsN); err == nil && bitsN > 0 && bitsN%8 == 0 {
				d.Name, d.Size, d.Kind, d.Unit = n.Name, bitsN/8, 'V', 1
				return d, nil
			}
		}
		return d, array.Unsupported("data type %q", n.Name)
	}
	return d, nil
}

// zarr3Reader reads chunks of a Zarr v3 array, or inner chunks of a
// sharded one.
type zarr3Reader struct {
	a      *array.Array
	prefix string // "c" for the default encoding
	sep    string
	chain  *chain
	shards *indexCache
}

// outerKey is the store key of the (outer) chunk at coord.
func (r *zarr3Reader) outerKey(coord []int64) string {
	if r.prefix == "" {
		if len(coord) == 0 {
			return "0"
		}
		return array.JoinInts(coord, r.sep)
	}
	if len(coord) == 0 {
		return r.prefix
	}
	return r.prefix + r.sep + array.JoinInts(coord, r.sep)
}

func (r *zarr3Reader) ChunkKey(coord []int64) (string, []int64, error) {
	sh := r.chain.shard
	if sh == nil {
		return r.outerKey(coord), nil, nil
	}
	outer := make([]int64, len(coord))
	inner := make([]int64, len(coord))
	for i, c := range coord {
		outer[i], inner[i] = c/sh.cps[i], c%sh.cps[i]
	}
	return r.outerKey(outer), inner, nil
}

func (r *zarr3Reader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	a := r.a
	if a.DType.Variable() {
		return nil, false, array.Unsupported("%s elements have no raw form; read them as strings", a.DType.Name)
	}
	key, inner, _ := r.ChunkKey(coord)
	if sh := r.chain.shard; sh != nil && len(r.chain.bb) == 0 && len(r.chain.aa) == 0 {
		raw, found, err := sh.readInner(ctx, a.Store(), key, inner, r.shards, a.Limits())
		if err != nil || !found {
			return nil, false, err
		}
		data, err := sh.chain.decode(raw, a.ChunkShape, a.Limits())
		if err != nil {
			return nil, false, fmt.Errorf("shard %s, inner chunk %v: %w", key, inner, err)
		}
		return data, true, nil
	}
	src, err := array.ReadFile(ctx, a.Store(), key, a.Limits().MaxChunk)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	shape := a.ChunkShape
	if a.ShardShape != nil {
		shape = a.ShardShape
	}
	data, err := r.chain.decode(src, shape, a.Limits())
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: %w", key, err)
	}
	if a.ShardShape != nil {
		// A sharding codec under other codecs: the whole shard was
		// decoded; cut out the inner chunk.
		out := make([]byte, a.ChunkBytes())
		lo := make([]int64, len(inner))
		for i := range inner {
			lo[i] = inner[i] * a.ChunkShape[i]
		}
		array.CopyBox(out, a.ChunkShape, make([]int64, len(lo)), data, a.ShardShape, lo, a.ChunkShape, a.DType.Size)
		return out, true, nil
	}
	return data, true, nil
}

// A chain is a Zarr v3 codec pipeline: array->array codecs, one
// array->bytes codec, bytes->bytes codecs.
type chain struct {
	dt    array.DType
	aa    []arrayCodec
	big   bool      // the bytes codec is big endian
	shard *sharding // the array->bytes codec is sharding_indexed
	vlen  string    // the array->bytes codec is vlen-utf8 / vlen-bytes
	bb    []bytesCodec
	fill  []byte
}

// An arrayCodec is an array->array codec.
type arrayCodec struct {
	name string
	// order is the transpose permutation; nil for elementwise codecs.
	order []int
	// elem decodes element values in place (numcodecs.delta).
	elem func(b []byte) ([]byte, error)
}

func parseChain(raws []json.RawMessage, dt array.DType, lim vfs.Limits) (*chain, error) {
	c := &chain{dt: dt}
	stage := 0 // 0 array->array, 1 bytes->bytes
	for _, raw := range raws {
		n, err := parseNamed(raw)
		if err != nil {
			return nil, err
		}
		switch n.Name {
		case "transpose":
			if stage != 0 {
				return nil, driver.Corruptf("codec transpose after the array->bytes codec")
			}
			var tc struct {
				Order json.RawMessage `json:"order"`
			}
			if err := n.decode(&tc); err != nil {
				return nil, err
			}
			var order []int
			var s string
			switch {
			case json.Unmarshal(tc.Order, &order) == nil:
			case json.Unmarshal(tc.Order, &s) == nil && s == "C":
				order = nil
			default:
				return nil, array.Unsupported("transpose order %s", tc.Order)
			}
			c.aa = append(c.aa, arrayCodec{name: "transpose", order: order})
		case "numcodecs.delta":
			if stage != 0 {
				return nil, driver.Corruptf("codec %s after the array->bytes codec", n.Name)
			}
			var dc struct {
				DType  string `json:"dtype"`
				AsType string `json:"astype"`
			}
			if err := n.decode(&dc); err != nil {
				return nil, err
			}
			if dc.AsType == "" {
				dc.AsType = dc.DType
			}
			from, err := parseNum(dc.AsType)
			if err != nil {
				return nil, err
			}
			to, err := parseNum(dc.DType)
			if err != nil {
				return nil, err
			}
			// Values reach array->array codecs little endian.
			from.big, to.big = false, false
			if to.size != dt.Size || from.size != dt.Size {
				return nil, array.Unsupported("numcodecs.delta changing the element size")
			}
			c.aa = append(c.aa, arrayCodec{name: n.Name, elem: func(b []byte) ([]byte, error) { return deltaDecode(b, from, to) }})
		case "bytes", "endian":
			if stage != 0 {
				return nil, driver.Corruptf("two array->bytes codecs")
			}
			var bc struct {
				Endian string `json:"endian"`
			}
			if err := n.decode(&bc); err != nil {
				return nil, err
			}
			switch bc.Endian {
			case "little", "":
			case "big":
				c.big = true
			default:
				return nil, driver.Corruptf("bytes: endian %q", bc.Endian)
			}
			stage = 1
		case "vlen-utf8", "vlen-bytes":
			if stage != 0 {
				return nil, driver.Corruptf("two array->bytes codecs")
			}
			c.vlen = n.Name
			stage = 1
		case "sharding_indexed":
			if stage != 0 {
				return nil, driver.Corruptf("two array->bytes codecs")
			}
			sh, err := parseSharding(n.Config, dt, lim)
			if err != nil {
				return nil, err
			}
			c.shard = sh
			stage = 1
		case "crc32c":
			c.bb = append(c.bb, bytesCodec{id: n.Name, decode: func(b []byte, _ int) ([]byte, error) { return arraycodec.CRC32C(b) }})
			stage = max(stage, 1)
		case "gzip", "zstd", "blosc":
			bc, _ := compressorByName(n.Name, nil)
			c.bb = append(c.bb, bc)
			stage = max(stage, 1)
		default:
			if id, ok := strings.CutPrefix(n.Name, "numcodecs."); ok {
				if bc, err := compressorByName(id, nil); err == nil {
					c.bb = append(c.bb, bc)
					stage = max(stage, 1)
					continue
				}
			}
			if n.MustUnderstand != nil && !*n.MustUnderstand {
				continue
			}
			return nil, array.Unsupported("codec %q is not supported", n.Name)
		}
	}
	if stage == 0 {
		return nil, driver.Corruptf("no array->bytes codec")
	}
	return c, nil
}

// decode runs the chain backwards over src, one chunk of shape, and returns
// its elements little endian in C order.
func (c *chain) decode(src []byte, shape []int64, lim vfs.Limits) ([]byte, error) {
	// The shape that the array->bytes codec sees.
	enc := slices.Clone(shape)
	for _, ac := range c.aa {
		if ac.order != nil {
			if len(ac.order) != len(enc) || !isPerm(ac.order) {
				return nil, driver.Corruptf("transpose order %v for %d dimensions", ac.order, len(enc))
			}
			p := make([]int64, len(enc))
			for i, o := range ac.order {
				p[i] = enc[o]
			}
			enc = p
		}
	}
	want := array.Prod(enc) * int64(c.dt.Size)
	maxOut := want
	if c.shard != nil || c.vlen != "" {
		maxOut = lim.MaxChunk
	}
	data := src
	var err error
	for i := len(c.bb) - 1; i >= 0; i-- {
		if data, err = c.bb[i].decode(data, int(maxOut)); err != nil {
			return nil, fmt.Errorf("%s: %w", c.bb[i].id, err)
		}
	}
	switch {
	case c.vlen != "":
		return nil, array.Unsupported("%s elements have no raw form", c.vlen)
	case c.shard != nil:
		if data, err = c.shard.decodeWhole(data, enc, c.fill, lim); err != nil {
			return nil, err
		}
	default:
		if int64(len(data)) != want {
			return nil, driver.Corruptf("chunk decodes to %d bytes, want %d", len(data), want)
		}
		if len(c.bb) == 0 {
			data = slices.Clone(data)
		}
		if c.big {
			array.SwapUnits(data, c.dt.Unit)
		}
	}
	// Undo the array->array codecs, last first.
	for i := len(c.aa) - 1; i >= 0; i-- {
		ac := c.aa[i]
		if ac.order != nil {
			// enc is this codec's output shape; its input shape is
			// enc permuted back.
			in := make([]int64, len(enc))
			for j, o := range ac.order {
				in[o] = enc[j]
			}
			data = array.Untranspose(data, in, ac.order, c.dt.Size)
			enc = in
		} else if data, err = ac.elem(data); err != nil {
			return nil, fmt.Errorf("%s: %w", ac.name, err)
		}
	}
	return data, nil
}

func isPerm(order []int) bool {
	seen := make([]bool, len(order))
	for _, o := range order {
		if o < 0 || o >= len(order) || seen[o] {
			return false
		}
		seen[o] = true
	}
	return true
}
