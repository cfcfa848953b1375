package hdf5adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs/driver"
)

// readGridBytes is the target size of one read-grid chunk of a contiguous
// or compact dataset, which has no chunks of its own.
const readGridBytes = 4 << 20

// ArrayNode returns the dataset as an array node (format "hdf5"), so that
// package array (array.OpenArray, "pipefs array") reads it: ReadChunk
// gives little-endian chunks (big-endian numbers are swapped), at the
// dataset's chunk shape, or for a contiguous or compact dataset on a read
// grid of whole trailing dimensions of about 4 MiB. Variable-length
// strings read through Array.ReadStrings; other variable-length data and
// references do not read.
func (d *Dataset) ArrayNode() *array.Node {
	x := d.info
	attrs, _ := json.Marshal(d.Attributes)
	if d.Attributes == nil {
		attrs = []byte("{}")
	}
	n := &array.Node{Format: "hdf5", Path: d.Path, IsArray: true, Attributes: attrs, Source: d}
	shape := slices.Clone(x.dims)
	if x.null {
		shape = []int64{0}
	}
	a := &array.Array{
		Shape:       shape,
		DType:       arrayDType(&d.DType),
		KeyEncoding: "hdf5 " + d.Layout,
	}
	r := &chunkReader{d: x}
	a.Reader = r
	if x.layout == layoutChunked {
		a.ChunkShape = slices.Clone(x.chunk)
		a.KeyEncoding += " (" + d.ChunkIndex + " index)"
		if !x.dtype.Variable() {
			a.Reader = storedChunks{r}
		}
	} else {
		a.ChunkShape = readGrid(shape, x.es)
	}
	r.grid = a.ChunkShape
	for _, f := range d.Filters {
		cfg, _ := json.Marshal(map[string]any{"id": f.ID, "flags": f.Flags, "values": f.Values})
		a.Codecs = append(a.Codecs, array.Codec{Name: f.Name, Config: cfg})
	}
	if x.fill != nil {
		a.Fill = slices.Clone(x.fill)
		array.SwapUnits(a.Fill, swapUnit(&d.DType))
		a.FillValue, _ = json.Marshal(fillJSON(decodeValue(x.fill, &d.DType)))
	} else {
		a.FillValue = []byte("null")
	}
	n.Array = a
	return array.Bind(n, x.f.lim)
}

// fillJSON makes v marshal (NaN and infinities as strings, as Zarr does).
func fillJSON(v any) any {
	if f, ok := v.(float64); ok {
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
	}
	return v
}

// ArrayNode returns the group as a group node (format "hdf5") whose
// children are its listed links (those of Links not in Omitted).
func (g *Group) ArrayNode() *array.Node {
	attrs, _ := json.Marshal(g.Attributes)
	if g.Attributes == nil {
		attrs = []byte("{}")
	}
	n := &array.Node{Format: "hdf5", Path: g.Path, Attributes: attrs, Source: g}
	for _, l := range g.Links {
		if !slices.ContainsFunc(g.Omitted, func(o Link) bool { return o.Name == l.Name }) {
			n.Children = append(n.Children, l.Name)
		}
	}
	return n
}

// readGrid returns a read grid for a dataset without chunks: whole
// trailing dimensions, and as many rows of the first dimension that is
// cut as fit in readGridBytes.
func readGrid(shape []int64, es int) []int64 {
	g := make([]int64, len(shape))
	for i := range g {
		g[i] = max(shape[i], 1)
	}
	inner := int64(es)
	for i := len(shape) - 1; i >= 0; i-- {
		if inner*g[i] > readGridBytes {
			g[i] = max(1, readGridBytes/inner)
			for j := range i {
				g[j] = 1
			}
			break
		}
		inner *= g[i]
	}
	return g
}

// swapUnit returns the byte size of the numbers that a little-endian
// read of big-endian type t swaps (a complex number's two parts apart),
// or 0 when nothing swaps.
func swapUnit(t *DType) int {
	switch {
	case t.BigEndian:
		return t.Size
	case t.Class == "enum" && t.Base != nil && t.Base.BigEndian:
		// An enum's byte order is its base type's.
		return t.Size
	case t.Class == "compound" && strings.HasPrefix(t.NumPy, ">c"):
		return t.Size / 2
	}
	return 0
}

// arrayDType maps an HDF5 type to package array's.
func arrayDType(t *DType) array.DType {
	num := func(kind string) array.DType {
		d, _ := array.Numeric(fmt.Sprintf("%s%d", kind, 8*t.Size))
		d.Stored = t.NumPy
		return d
	}
	switch t.Class {
	case "integer", "bitfield":
		if t.Size <= 8 && t.Size&(t.Size-1) == 0 {
			if t.Signed {
				return num("int")
			}
			return num("uint")
		}
	case "enum":
		if t.NumPy == "|b1" {
			d, _ := array.Numeric("bool")
			d.Stored = t.NumPy
			return d
		}
		if t.Base != nil {
			d := arrayDType(t.Base)
			d.Stored = t.NumPy
			return d
		}
	case "float":
		if t.Size == 2 || t.Size == 4 || t.Size == 8 {
			return num("float")
		}
	case "compound":
		switch strings.TrimLeft(t.NumPy, "<>|") {
		case "c8", "c16":
			d, _ := array.Numeric(fmt.Sprintf("complex%d", 8*t.Size))
			d.Stored = t.NumPy
			return d
		}
	case "string":
		return array.DType{Name: fmt.Sprintf("bytes[%d]", t.Size), Size: t.Size, Kind: 'S', Unit: 1, Stored: t.NumPy}
	case "vlen":
		if t.VarString {
			return array.DType{Name: "string", Kind: 'O', Stored: "vlen str"}
		}
		return array.DType{Name: "object", Kind: 'O', Stored: t.String()}
	case "reference":
		return array.DType{Name: "object", Kind: 'O', Stored: t.String()}
	}
	return array.DType{Name: fmt.Sprintf("raw[%d]", t.Size), Size: t.Size, Kind: 'V', Unit: 1, Stored: t.NumPy}
}

// chunkReader reads a dataset on its read grid.
type chunkReader struct {
	d    *dsInfo
	grid []int64
}

// ChunkKey names a chunk by its coordinates: HDF5 chunks have no keys.
func (r *chunkReader) ChunkKey(coord []int64) (string, []int64, error) {
	return "chunk " + array.JoinInts(coord, ","), nil, nil
}

// ReadChunk returns the chunk at coord, little endian.
func (r *chunkReader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	if r.d.dtype.Variable() {
		return nil, false, r.d.variableErr()
	}
	data, found, err := r.raw(ctx, coord)
	if err != nil || !found {
		return nil, found, err
	}
	array.SwapUnits(data, swapUnit(&r.d.dtype))
	return data, true, nil
}

// raw returns a copy of the stored bytes of the read-grid chunk at coord,
// full size, elements outside the dataset as fill.
func (r *chunkReader) raw(ctx context.Context, coord []int64) ([]byte, bool, error) {
	d := r.d
	cb := array.Prod(r.grid) * int64(d.es)
	if cb > d.f.lim.MaxChunk {
		return nil, false, driver.Limitf("read chunk of %d bytes, more than MaxChunk (%d)", cb, d.f.lim.MaxChunk)
	}
	if d.layout == layoutChunked {
		data, found, err := d.readChunk(ctx, coord)
		if err != nil || !found {
			return nil, found, err
		}
		return slices.Clone(data), true, nil
	}
	out := array.FillBytes(d.fill, array.Prod(r.grid), d.es)
	if len(d.dims) == 0 {
		if d.null {
			return out, true, nil
		}
		_, err := d.readRaw(ctx, out, 0)
		return out, true, err
	}
	// Runs along the last axis, from the dataset's bytes.
	lo := make([]int64, len(coord))
	ext := make([]int64, len(coord))
	for i := range coord {
		lo[i] = coord[i] * r.grid[i]
		ext[i] = min(r.grid[i], d.dims[i]-lo[i])
		if ext[i] <= 0 {
			return out, true, nil
		}
	}
	es := int64(d.es)
	last := len(coord) - 1
	var failed error
	array.ForEachIndex(ext[:last], func(_ int64, idx []int64) {
		if failed != nil {
			return
		}
		var src, dst int64
		for k := range last {
			src = src*d.dims[k] + lo[k] + idx[k]
			dst = dst*r.grid[k] + idx[k]
		}
		src = src*d.dims[last] + lo[last]
		dst = dst * r.grid[last]
		_, failed = d.readRaw(ctx, out[dst*es:(dst+ext[last])*es], src*es)
	})
	return out, true, failed
}

// storedChunks is the chunkReader of a chunked dataset of fixed-size
// elements: an array.ExtentReader, so that box reads fetch neighbouring
// chunks of the file with one request.
type storedChunks struct{ *chunkReader }

var _ array.ExtentReader = storedChunks{}

// ChunkExtent looks the chunk at coord up in the chunk index.
func (r storedChunks) ChunkExtent(ctx context.Context, coord []int64) (array.Extent, bool, error) {
	loc, err := r.d.locate(ctx, coord)
	if err != nil || !loc.found {
		return array.Extent{}, false, err
	}
	return array.Extent{Off: int64(loc.addr), Len: int64(loc.size), Flags: uint64(loc.mask)}, true, nil
}

// ReadExtent reads e's bytes of the file with one request: it declares
// them (driver.Prefetch), so that a remote file fetches them exactly.
func (r storedChunks) ReadExtent(ctx context.Context, e array.Extent) ([]byte, error) {
	f := r.d.f
	if err := f.check(uint64(e.Off), uint64(e.Len), "chunks"); err != nil {
		return nil, err
	}
	off := int64(f.base) + e.Off
	_ = driver.Prefetch(ctx, f.blob, off, e.Len) // a hint; a failure shows in the read
	b := make([]byte, e.Len)
	if _, err := readFull(ctx, f.blob, b, off); err != nil {
		return nil, fmt.Errorf("chunks at %#x: %w", e.Off, err)
	}
	return b, nil
}

// DecodeChunk undoes the filters of the chunk at coord and gives its
// elements little endian.
func (r storedChunks) DecodeChunk(_ context.Context, coord []int64, e array.Extent, stored []byte) ([]byte, error) {
	data, err := r.d.decodeStored(coord, uint32(e.Flags), stored)
	if err != nil {
		return nil, err
	}
	array.SwapUnits(data, swapUnit(&r.d.dtype))
	return data, nil
}

// ReadStrings reads the variable-length strings of the read-grid chunk at
// coord.
func (r *chunkReader) ReadStrings(ctx context.Context, coord []int64, fill string, b *array.Budget) ([]string, bool, error) {
	d := r.d
	if !d.dtype.VarString {
		return nil, false, array.Unsupported("%s elements are not strings", d.dtype.String())
	}
	n := array.Prod(r.grid)
	if err := b.Take(n*int64(d.es), "the chunk's string pointers"); err != nil {
		return nil, false, err
	}
	raw, found, err := r.raw(ctx, coord)
	if err != nil || !found {
		return nil, found, err
	}
	out := make([]string, n)
	for i := range out {
		e := raw[int64(i)*int64(d.es) : int64(i+1)*int64(d.es)]
		if allZero(e) {
			out[i] = fill
			continue
		}
		c := d.f.cursor(e, "variable-length string")
		size := c.u32()
		addr := c.addr()
		idx := c.u32()
		if c.err != nil {
			return nil, false, c.err
		}
		if size == 0 {
			continue
		}
		obj, err := d.f.globalObject(ctx, addr, idx)
		if err != nil {
			return nil, false, err
		}
		if uint64(size) > uint64(len(obj)) {
			return nil, false, driver.Corruptf("variable-length string of %d bytes in a heap object of %d", size, len(obj))
		}
		if err := b.Take(int64(size), "variable-length strings"); err != nil {
			return nil, false, err
		}
		out[i] = string(obj[:size])
	}
	return out, true, nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
