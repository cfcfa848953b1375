package precomputedadapter

import (
	"context"
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

// precomputedInfo is the info file of a neuroglancer precomputed volume.
type precomputedInfo struct {
	AtType      string             `json:"@type"`
	Type        string             `json:"type"`
	DataType    string             `json:"data_type"`
	NumChannels int64              `json:"num_channels"`
	Scales      []precomputedScale `json:"scales"`
}

type precomputedScale struct {
	Key         string          `json:"key"`
	Size        []int64         `json:"size"`
	VoxelOffset []int64         `json:"voxel_offset"`
	ChunkSizes  [][]int64       `json:"chunk_sizes"`
	Resolution  []float64       `json:"resolution"`
	Encoding    string          `json:"encoding"`
	Sharding    json.RawMessage `json:"sharding"`
}

// precomputed describes a precomputed volume (name "."), a group whose
// children are its scale keys, or one scale (name = a scale key) as a 4-D
// array [channel, z, y, x].
func (d *describer) precomputed(name string) (*array.Node, error) {
	var info precomputedInfo
	raw, err := d.ReadJSON("info", &info)
	if err != nil {
		return nil, err
	}
	if info.AtType != "" && info.AtType != "neuroglancer_multiscale_volume" {
		return nil, array.Unsupported("precomputed @type %q", info.AtType)
	}
	if name == "." {
		n := &array.Node{Format: FormatPrecomputed, Path: ".", Attributes: raw, Source: volume{}}
		for _, s := range info.Scales {
			n.Children = append(n.Children, s.Key)
		}
		return n, nil
	}
	for _, s := range info.Scales {
		if path.Clean(s.Key) != name {
			continue
		}
		a, err := d.precomputedArray(&info, &s)
		if err != nil {
			return nil, fmt.Errorf("info: scale %q: %w", s.Key, err)
		}
		sraw, _ := json.Marshal(s)
		return &array.Node{Format: FormatPrecomputed, Path: name, IsArray: true, Attributes: sraw, Array: a}, nil
	}
	return nil, fmt.Errorf("precomputed: no scale %q: %w", name, fs.ErrNotExist)
}

func (d *describer) precomputedArray(info *precomputedInfo, s *precomputedScale) (*array.Array, error) {
	dt, ok := array.Numeric(info.DataType)
	if !ok || dt.Kind == 'b' || dt.Kind == 'c' || dt.Size == 2 && dt.Kind == 'f' || info.DataType == "float64" {
		return nil, array.Unsupported("precomputed data_type %q", info.DataType)
	}
	dt.Stored = info.DataType
	if len(s.Size) != 3 || len(s.ChunkSizes) == 0 || len(s.ChunkSizes[0]) != 3 {
		return nil, driver.Corruptf("size and chunk_sizes must have 3 entries")
	}
	if len(s.Sharding) > 0 && string(s.Sharding) != "null" {
		return nil, array.Unsupported("sharded precomputed scales")
	}
	if s.Encoding != "raw" {
		return nil, array.Unsupported("precomputed encoding %q", s.Encoding)
	}
	off := s.VoxelOffset
	if off == nil {
		off = []int64{0, 0, 0}
	}
	if len(off) != 3 {
		return nil, driver.Corruptf("voxel_offset must have 3 entries")
	}
	if info.NumChannels <= 0 {
		return nil, driver.Corruptf("num_channels %d", info.NumChannels)
	}
	c := s.ChunkSizes[0]
	a := &array.Array{
		Shape:          []int64{info.NumChannels, s.Size[2], s.Size[1], s.Size[0]},
		ChunkShape:     []int64{info.NumChannels, c[2], c[1], c[0]},
		DType:          dt,
		FillValue:      json.RawMessage("0"),
		Fill:           make([]byte, dt.Size),
		DimensionNames: []string{"c", "z", "y", "x"},
		Codecs:         []array.Codec{{Name: "precomputed.raw"}},
		KeyEncoding:    "precomputed",
	}
	if err := array.CheckGrid(a.Shape, a.ChunkShape, dt.Size, d.Lim); err != nil {
		return nil, err
	}
	a.Reader = &precomputedReader{a: a, scaleKey: path.Clean(s.Key), offset: off}
	return a, nil
}

// precomputedReader reads raw precomputed chunks.
type precomputedReader struct {
	a        *array.Array
	scaleKey string  // the scale's directory, which is the array's store
	offset   []int64 // voxel_offset [x, y, z]
}

// bounds returns the voxel box [lo, hi) of chunk coord ([c, z, y, x]
// grid) in [x, y, z] order, truncated at the volume's edge.
func (r *precomputedReader) bounds(coord []int64) (lo, hi []int64) {
	a := r.a
	lo, hi = make([]int64, 3), make([]int64, 3)
	for i := 0; i < 3; i++ {
		ax := 3 - i // x is axis 3 of the C view
		start := coord[ax] * a.ChunkShape[ax]
		lo[i] = r.offset[i] + start
		hi[i] = r.offset[i] + min(start+a.ChunkShape[ax], a.Shape[ax])
	}
	return lo, hi
}

func (r *precomputedReader) ChunkKey(coord []int64) (string, []int64, error) {
	if len(coord) != 4 || coord[0] != 0 {
		return "", nil, fmt.Errorf("precomputed chunk %v: %w", coord, fs.ErrInvalid)
	}
	lo, hi := r.bounds(coord)
	return fmt.Sprintf("%d-%d_%d-%d_%d-%d", lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]), nil, nil
}

func (r *precomputedReader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	a := r.a
	key, _, err := r.ChunkKey(coord)
	if err != nil {
		return nil, false, err
	}
	lo, hi := r.bounds(coord)
	valid := []int64{a.ChunkShape[0], hi[2] - lo[2], hi[1] - lo[1], hi[0] - lo[0]}
	want := array.Prod(valid) * int64(a.DType.Size)
	src, err := array.ReadFile(ctx, a.Store(), key, a.Limits().MaxChunk)
	if errors.Is(err, fs.ErrNotExist) {
		// CloudVolume's local writer appends .gz.
		src, err = array.ReadFile(ctx, a.Store(), key+".gz", a.Limits().MaxChunk)
		if err == nil {
			src, err = arraycodec.Gzip(src, int(want))
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: %w", key, err)
	}
	if int64(len(src)) != want {
		return nil, false, driver.Corruptf("chunk %s: %d bytes, want %d", key, len(src), want)
	}
	if slices.Equal(valid, a.ChunkShape) {
		return src, true, nil
	}
	out := array.FillBytes(a.Fill, array.Prod(a.ChunkShape), a.DType.Size)
	zero := make([]int64, 4)
	array.CopyBox(out, a.ChunkShape, zero, src, valid, zero, valid, a.DType.Size)
	return out, true, nil
}
