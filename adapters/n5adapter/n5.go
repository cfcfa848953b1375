package n5adapter

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs/driver"
)

// n5 describes an N5 node: a dataset when attributes.json has dimensions,
// blockSize and dataType; else a group.
func (d *describer) n5(name string) (*array.Node, error) {
	meta := path.Join(name, "attributes.json")
	b, err := d.ReadFile(meta)
	if err != nil {
		return nil, err
	}
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(b, &attrs); err != nil {
		return nil, driver.Corruptf("%s: %v", meta, err)
	}
	n := &array.Node{Format: FormatN5, Path: name, Attributes: b}
	if _, ok := attrs["dimensions"]; ok {
		n.IsArray = true
		if n.Array, err = d.n5Array(attrs); err != nil {
			return nil, fmt.Errorf("%s: %w", meta, err)
		}
		return n, nil
	}
	if d.Children {
		if n.Children, err = d.Subdirs(name, "attributes.json"); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (d *describer) n5Array(attrs map[string]json.RawMessage) (*array.Array, error) {
	for _, k := range []string{"codecs", "shardSize"} {
		if _, ok := attrs[k]; ok {
			return nil, array.Unsupported("N5 4 key %q", k)
		}
	}
	var dims, block []int64
	var dtName string
	if err := json.Unmarshal(attrs["dimensions"], &dims); err != nil {
		return nil, driver.Corruptf("dimensions: %v", err)
	}
	if err := json.Unmarshal(attrs["blockSize"], &block); err != nil {
		return nil, driver.Corruptf("blockSize: %v", err)
	}
	if err := json.Unmarshal(attrs["dataType"], &dtName); err != nil {
		return nil, driver.Corruptf("dataType: %v", err)
	}
	dt, ok := array.Numeric(dtName)
	if !ok || dt.Kind == 'b' || dt.Kind == 'c' || dtName == "float16" {
		return nil, array.Unsupported("N5 dataType %q", dtName)
	}
	dt.Stored = dtName
	// The N5 order is first-axis-fastest: present it reversed, in C order.
	a := &array.Array{Shape: reversed(dims), ChunkShape: reversed(block), DType: dt,
		FillValue: json.RawMessage("0"), Fill: make([]byte, dt.Size), KeyEncoding: "n5"}
	if err := array.CheckGrid(a.Shape, a.ChunkShape, dt.Size, d.Lim); err != nil {
		return nil, err
	}
	var comp map[string]json.RawMessage
	if raw, ok := attrs["compression"]; ok {
		if err := json.Unmarshal(raw, &comp); err != nil {
			return nil, driver.Corruptf("compression: %v", err)
		}
		a.Codecs = []array.Codec{{Name: "n5." + unquote(comp["type"]), Config: raw}}
	} else if raw, ok := attrs["compressionType"]; ok {
		comp = map[string]json.RawMessage{"type": raw}
		a.Codecs = []array.Codec{{Name: "n5." + unquote(raw)}}
	} else {
		comp = map[string]json.RawMessage{"type": json.RawMessage(`"raw"`)}
		a.Codecs = []array.Codec{{Name: "n5.raw"}}
	}
	r := &n5Reader{a: a}
	switch t := unquote(comp["type"]); t {
	case "raw":
	case "gzip":
		r.decode = arraycodec.Gzip
		var useZlib bool
		json.Unmarshal(comp["useZlib"], &useZlib)
		if useZlib {
			r.decode = arraycodec.Zlib
		}
	case "bzip2":
		r.decode = arraycodec.Bzip2
	case "xz":
		r.decode = arraycodec.XZComplete
	case "blosc":
		r.decode = arraycodec.Blosc
	case "zstd":
		r.decode = arraycodec.Zstd
	default:
		return nil, array.Unsupported("N5 compression %q", t)
	}
	if names, ok := attrs["axes"]; ok {
		var axes []string
		if json.Unmarshal(names, &axes) == nil && len(axes) == len(dims) {
			slices.Reverse(axes)
			a.DimensionNames = axes
		}
	}
	a.Reader = r
	return a, nil
}

func unquote(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

func reversed(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// n5Reader reads N5 blocks.
type n5Reader struct {
	a      *array.Array
	decode func([]byte, int) ([]byte, error) // nil: raw
}

func (r *n5Reader) ChunkKey(coord []int64) (string, []int64, error) {
	if len(coord) == 0 {
		return "0", nil, nil
	}
	return array.JoinInts(reversed(coord), "/"), nil, nil
}

func (r *n5Reader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	a := r.a
	key, _, _ := r.ChunkKey(coord)
	src, err := array.ReadFile(ctx, a.Store(), key, a.Limits().MaxChunk)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	data, err := r.block(src)
	if err != nil {
		return nil, false, fmt.Errorf("block %s: %w", key, err)
	}
	return data, true, nil
}

// block decodes one N5 block: header, payload, big-endian elements first
// axis fastest, padded to the full block.
func (r *n5Reader) block(src []byte) ([]byte, error) {
	a := r.a
	nd := len(a.Shape)
	if len(src) < 4 {
		return nil, driver.Corruptf("block header truncated")
	}
	mode := binary.BigEndian.Uint16(src)
	ndim := int(binary.BigEndian.Uint16(src[2:]))
	if mode > 1 {
		return nil, array.Unsupported("N5 block mode %d", mode)
	}
	if ndim != nd {
		return nil, driver.Corruptf("block has %d dimensions, the dataset %d", ndim, nd)
	}
	p := 4
	if len(src) < p+4*nd {
		return nil, driver.Corruptf("block header truncated")
	}
	hs := make([]int64, nd) // C order
	for i := 0; i < nd; i++ {
		v := int64(binary.BigEndian.Uint32(src[p+4*i:]))
		hs[nd-1-i] = v
	}
	p += 4 * nd
	for i := range hs {
		if hs[i] > a.ChunkShape[i] {
			return nil, driver.Corruptf("block size %v larger than blockSize %v", reversed(hs), reversed(a.ChunkShape))
		}
	}
	count := array.Prod(hs)
	if mode == 1 {
		if len(src) < p+4 {
			return nil, driver.Corruptf("block header truncated")
		}
		if n := int64(binary.BigEndian.Uint32(src[p:])); n != count {
			return nil, driver.Corruptf("varlength block of %d elements, size says %d", n, count)
		}
		p += 4
	}
	want := count * int64(a.DType.Size)
	payload := src[p:]
	if r.decode != nil {
		var err error
		if payload, err = r.decode(payload, int(a.ChunkBytes())); err != nil {
			return nil, err
		}
	}
	if int64(len(payload)) < want {
		return nil, driver.Corruptf("block payload %d bytes, want %d", len(payload), want)
	}
	data := slices.Clone(payload[:want])
	array.SwapUnits(data, a.DType.Unit)
	if slices.Equal(hs, a.ChunkShape) {
		return data, nil
	}
	out := array.FillBytes(a.Fill, array.Prod(a.ChunkShape), a.DType.Size)
	zero := make([]int64, nd)
	array.CopyBox(out, a.ChunkShape, zero, data, hs, zero, hs, a.DType.Size)
	return out, nil
}
