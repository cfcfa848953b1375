package precomputedadapter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs/driver"
)

// scaleReader is what the readers of a scale share: the geometry, and the
// decoding of one chunk's encoding.
type scaleReader struct {
	a        *array.Array
	offset   [3]int64 // voxel_offset, [x, y, z]
	encoding string   // raw, jpeg, png or compressed_segmentation
	block    [3]int64 // compressed_segmentation_block_size, [x, y, z]
	// refused, when not nil, is why no chunk of the scale is read (an
	// encoding or sharding pipefs does not decode); describing the scale
	// works all the same.
	refused error
}

// valid returns the extent [x, y, z] of chunk coord ([c, z, y, x] grid)
// inside the volume: the chunk shape, truncated at the volume's edge.
func (r *scaleReader) valid(coord []int64) [3]int64 {
	a := r.a
	var v [3]int64
	for i := range v {
		ax := 3 - i // x is axis 3 of the C view
		v[i] = min(a.ChunkShape[ax], a.Shape[ax]-coord[ax]*a.ChunkShape[ax])
	}
	return v
}

// decode decodes the stored bytes of chunk coord, in the scale's
// encoding, to the full chunk shape [c, z, y, x] with the voxels past the
// volume's edge as fill (0). The stored chunk holds the voxels inside the
// volume, [x, y, z, c] Fortran order; a raw chunk may also hold the full
// chunk shape, as some writers of sharded volumes pad edge chunks.
func (r *scaleReader) decode(src []byte, coord []int64) ([]byte, error) {
	if r.refused != nil {
		return nil, r.refused
	}
	a := r.a
	es := a.DType.Size
	v := r.valid(coord)
	ch := int(a.ChunkShape[0])
	shape := []int64{a.ChunkShape[0], v[2], v[1], v[0]}
	voxels := v[0] * v[1] * v[2]
	var part []byte
	var err error
	switch r.encoding {
	case "raw":
		if full := a.ChunkBytes(); int64(len(src)) == full && full != int64(ch)*voxels*int64(es) {
			return src, nil
		}
		if int64(len(src)) != int64(ch)*voxels*int64(es) {
			return nil, driver.Corruptf("raw chunk of %d bytes, want %d", len(src), int64(ch)*voxels*int64(es))
		}
		part = src
	case "jpeg", "png":
		part, err = decodeImageChunk(src, r.encoding, voxels, ch, es)
	case "compressed_segmentation":
		part, err = decodeCompressedSegmentation(src, ch, v, r.block, es)
	}
	if err != nil {
		return nil, err
	}
	if slices.Equal(shape, a.ChunkShape) {
		return part, nil
	}
	out := array.FillBytes(a.Fill, array.Prod(a.ChunkShape), es)
	zero := make([]int64, 4)
	array.CopyBox(out, a.ChunkShape, zero, part, shape, zero, shape, es)
	return out, nil
}

// unshardedReader reads the chunks of an unsharded scale: one file a
// chunk, named by its voxel box.
type unshardedReader struct{ *scaleReader }

// ChunkKey returns the chunk's file, "x0-x1_y0-y1_z0-z1" (voxel_offset
// added, truncated at the volume's edge), relative to the scale's
// directory.
func (r unshardedReader) ChunkKey(coord []int64) (string, []int64, error) {
	if len(coord) != 4 || coord[0] != 0 {
		return "", nil, fmt.Errorf("precomputed chunk %v: %w", coord, fs.ErrInvalid)
	}
	v := r.valid(coord)
	var lo, hi [3]int64
	for i := range lo {
		lo[i] = r.offset[i] + coord[3-i]*r.a.ChunkShape[3-i]
		hi[i] = lo[i] + v[i]
	}
	return fmt.Sprintf("%d-%d_%d-%d_%d-%d", lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]), nil, nil
}

// ReadChunk reads the chunk's file, or the file with ".gz" appended
// (gzip, as CloudVolume writes them), and decodes it.
func (r unshardedReader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	a := r.a
	key, _, err := r.ChunkKey(coord)
	if err != nil {
		return nil, false, err
	}
	if r.refused != nil {
		return nil, false, fmt.Errorf("chunk %s: %w", key, r.refused)
	}
	max := a.Limits().MaxChunk
	src, err := array.ReadFile(ctx, a.Store(), key, max)
	if errors.Is(err, fs.ErrNotExist) {
		src, err = array.ReadFile(ctx, a.Store(), key+".gz", max)
		if err == nil {
			src, err = arraycodec.Gzip(src, int(min(max, 1<<62)))
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err == nil {
		src, err = r.decode(src, coord)
	}
	if err != nil {
		return nil, false, fmt.Errorf("chunk %s: %w", key, err)
	}
	return src, true, nil
}
