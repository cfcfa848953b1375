package precomputedadapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/pipefs/pipefs/adapters/array"
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
	BlockSize   []int64         `json:"compressed_segmentation_block_size,omitempty"`
	Sharding    json.RawMessage `json:"sharding,omitempty"`
}

// Encodings lists the chunk encodings pipefs decodes, as a scale's
// "encoding" names them.
var Encodings = []string{"raw", "jpeg", "png", "compressed_segmentation"}

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
		KeyEncoding:    "precomputed",
	}
	if err := array.CheckGrid(a.Shape, a.ChunkShape, dt.Size, d.Lim); err != nil {
		return nil, err
	}
	sr := &scaleReader{a: a, offset: [3]int64{off[0], off[1], off[2]}, encoding: s.Encoding}
	enc := array.Codec{Name: "precomputed." + s.Encoding}
	if err := checkEncoding(s, info, dt.Name); errors.Is(err, array.ErrUnsupported) {
		// Described all the same; every chunk read gives the error.
		sr.refused = err
	} else if err != nil {
		return nil, err
	}
	if s.Encoding == "compressed_segmentation" && sr.refused == nil {
		copy(sr.block[:], s.BlockSize)
		enc.Config, _ = json.Marshal(map[string][]int64{"block_size": s.BlockSize})
	}
	if len(s.Sharding) == 0 || string(s.Sharding) == "null" {
		a.Codecs = []array.Codec{enc}
		a.Reader = unshardedReader{sr}
		return a, nil
	}
	if len(s.ChunkSizes) != 1 {
		return nil, driver.Corruptf("a sharded scale has %d chunk sizes, want 1", len(s.ChunkSizes))
	}
	a.Codecs = []array.Codec{{Name: ShardingType, Config: s.Sharding}, enc}
	a.KeyEncoding = "precomputed sharded"
	sh, err := parseSharding(s.Sharding)
	if err != nil && !errors.Is(err, array.ErrUnsupported) {
		return nil, err
	}
	r := &shardedReader{scaleReader: sr, sh: sh}
	if err != nil {
		// A hash or encoding pipefs does not read: described all the same.
		r.sh = &sharding{}
		sr.refused = err
	}
	var grid [3]int64
	g := a.GridShape()
	for i := range grid {
		grid[i] = g[3-i]
	}
	r.zbits = mortonBits(grid)
	if r.zbits[0]+r.zbits[1]+r.zbits[2] > 64 {
		return nil, driver.Corruptf("a chunk grid of %v cells has no 64-bit chunk ids", grid)
	}
	r.cache, r.vol = indexCache(d.Src.Tree, path.Clean(s.Key), r)
	a.Reader = r
	return a, nil
}

// checkEncoding checks that pipefs decodes the scale's encoding for the
// volume's data type and channels; the error, matching
// array.ErrUnsupported, names what is not read and what is.
func checkEncoding(s *precomputedScale, info *precomputedInfo, dtype string) error {
	ch := info.NumChannels
	switch s.Encoding {
	case "raw":
		return nil
	case "jpeg":
		if dtype != "uint8" || ch != 1 && ch != 3 {
			return array.Unsupported("precomputed encoding jpeg of %d %s channels (jpeg holds 1 or 3 uint8 channels)", ch, dtype)
		}
		return nil
	case "png":
		if dtype != "uint8" && dtype != "uint16" || ch < 1 || ch > 4 {
			return array.Unsupported("precomputed encoding png of %d %s channels (png holds 1 to 4 uint8 or uint16 channels)", ch, dtype)
		}
		return nil
	case "compressed_segmentation":
		if dtype != "uint32" && dtype != "uint64" {
			return array.Unsupported("precomputed encoding compressed_segmentation of %s (it holds uint32 or uint64)", dtype)
		}
		b := s.BlockSize
		if len(b) != 3 || b[0] <= 0 || b[1] <= 0 || b[2] <= 0 || b[0] > 1<<20 || b[1] > 1<<20 || b[2] > 1<<20 || b[0]*b[1]*b[2] > 1<<40 {
			return driver.Corruptf("compressed_segmentation_block_size %v: want 3 positive sizes of at most 2^40 voxels in all", b)
		}
		return nil
	}
	return array.Unsupported("precomputed encoding %q: pipefs decodes %v; the scale's chunks can still be listed and read as stored", s.Encoding, Encodings)
}
