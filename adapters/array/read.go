package array

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/pipefs/pipefs/vfs/driver"
)

// checkCoord validates chunk coordinates against the grid.
func (a *Array) checkCoord(coord []int64) error {
	if len(coord) != len(a.Shape) {
		return fmt.Errorf("chunk %v: %d coordinates for %d dimensions: %w", coord, len(coord), len(a.Shape), fs.ErrInvalid)
	}
	g := a.GridShape()
	for i, c := range coord {
		if c < 0 || c >= g[i] {
			return fmt.Errorf("chunk %v outside the grid %v: %w", coord, g, fs.ErrInvalid)
		}
	}
	return nil
}

// ChunkKey returns the store key, relative to the array's directory, of
// the chunk at coord of the read grid, and for a sharded Zarr v3 array the
// coordinates of the inner chunk within that shard (nil otherwise).
func (a *Array) ChunkKey(coord []int64) (key string, inner []int64, err error) {
	if err := a.checkCoord(coord); err != nil {
		return "", nil, err
	}
	return a.Reader.ChunkKey(coord)
}

// ReadChunk decodes the chunk at coord of the read grid (GridShape). The
// data has the full chunk shape, C order, little endian; a chunk that is
// not stored is all fill, with Missing set. Variable-length types give an
// error matching ErrUnsupported.
func (a *Array) ReadChunk(ctx context.Context, coord []int64) (Chunk, error) {
	if err := a.checkCoord(coord); err != nil {
		return Chunk{}, err
	}
	if a.DType.Variable() {
		return Chunk{}, Unsupported("%s elements have no raw form; read them with ReadStrings", a.DType.Name)
	}
	data, found, err := a.Reader.ReadChunk(ctx, coord)
	if err != nil {
		return Chunk{}, err
	}
	c := Chunk{Data: data, Shape: a.ChunkShape, Valid: make([]int64, len(coord)), Missing: !found}
	if !found {
		c.Data = FillBytes(a.Fill, Prod(a.ChunkShape), a.DType.Size)
	}
	for i := range coord {
		c.Valid[i] = min(a.ChunkShape[i], a.Shape[i]-coord[i]*a.ChunkShape[i])
	}
	return c, nil
}

// checkBox validates the box [start, stop) and returns its byte size,
// failing with driver.ErrLimit when it exceeds limit (limit <= 0: no limit).
func (a *Array) checkBox(start, stop []int64, limit int64) (int64, error) {
	if len(start) != len(a.Shape) || len(stop) != len(a.Shape) {
		return 0, fmt.Errorf("box of %d dimensions for %d: %w", len(start), len(a.Shape), fs.ErrInvalid)
	}
	n := uint64(a.DType.Size)
	for i := range start {
		if start[i] < 0 || stop[i] < start[i] || stop[i] > a.Shape[i] {
			return 0, fmt.Errorf("box [%v, %v) outside the shape %v: %w", start, stop, a.Shape, fs.ErrInvalid)
		}
		hi, lo := bits.Mul64(n, uint64(stop[i]-start[i]))
		if hi != 0 || lo > 1<<62 {
			return 0, driver.Limitf("box [%v, %v) is too large", start, stop)
		}
		n = lo
	}
	if limit > 0 && int64(n) > limit {
		return 0, driver.Limitf("box [%v, %v) is %d bytes, more than the limit of %d", start, stop, n, limit)
	}
	return int64(n), nil
}

// ReadBox reads the elements in [start, stop) (per axis, C order) as C-order
// little-endian bytes: U as UTF-32LE, S raw, bool as 0 or 1. Missing chunks
// read as fill; edge chunks are cropped. It fails with driver.ErrLimit when
// the result would exceed limit bytes (limit <= 0: no limit besides
// memory). It reads up to Concurrency chunks at once (see
// DefaultConcurrency), fewer when they are large (see InFlight); the bytes
// are the same whatever the concurrency.
func (a *Array) ReadBox(ctx context.Context, start, stop []int64, limit int64) ([]byte, error) {
	n, err := a.checkBox(start, stop, limit)
	if err != nil {
		return nil, err
	}
	if a.DType.Variable() {
		return nil, Unsupported("%s elements have no raw form; read them with ReadStrings", a.DType.Name)
	}
	out := make([]byte, n)
	ext := make([]int64, len(start))
	for i := range ext {
		ext[i] = stop[i] - start[i]
	}
	if n == 0 {
		return out, nil
	}
	if err := a.readBox(ctx, out, ext, start, stop); err != nil {
		return nil, err
	}
	if a.DType.Kind == 'b' {
		for i, v := range out {
			if v != 0 {
				out[i] = 1
			}
		}
	}
	return out, nil
}

// DefaultConcurrency is the number of chunks a box read fetches and
// decodes at once when Array.Concurrency is 0. Chunk reads of a remote
// store are mostly latency, so the default is well above the number of
// cores: 64 requests in flight read 1,024 chunks at 20 ms each in about
// 16 round trips rather than 1,024 (0.45 s where 32 took 0.76 s and
// zarr-python with fsspec, 100 at once, 0.91 s: scripts/arraybench.sh).
const DefaultConcurrency = 64

// readBox reads the chunks that the box [start, stop) touches into out,
// the box's bytes (ext its extent), with up to a.inFlight() chunk reads
// at once, or for an ExtentReader that many reads of runs of chunks
// (readExtents). Each chunk is written to its own part of out, so the
// order in which chunks finish does not matter; memory beyond out is at
// most inFlight chunks, stored and decoded. The first error stops the
// reads not yet started, cancels the context of those in flight, and is
// returned.
func (a *Array) readBox(ctx context.Context, out []byte, ext, start, stop []int64) error {
	n := a.inFlight()
	if r, ok := a.Reader.(ExtentReader); ok {
		return a.readExtents(ctx, r, out, ext, start, stop, n)
	}
	if n == 1 {
		return a.forEachChunkInBox(ctx, start, stop, func(coord []int64, part boxPart) error {
			return a.readPart(ctx, out, ext, coord, part)
		})
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(n)
	err := a.forEachChunkInBox(gctx, start, stop, func(coord []int64, part boxPart) error {
		coord = slices.Clone(coord)
		part = boxPart{slices.Clone(part.lo), slices.Clone(part.dstLo), slices.Clone(part.ext)}
		g.Go(func() error { return a.readPart(gctx, out, ext, coord, part) })
		return nil
	})
	// A chunk's error cancels gctx, which stops the walk with
	// context.Canceled: the chunk's error is the cause.
	if werr := g.Wait(); werr != nil {
		return werr
	}
	return err
}

// readPart reads the chunk at coord and copies its part into out.
func (a *Array) readPart(ctx context.Context, out []byte, ext, coord []int64, part boxPart) error {
	c, err := a.ReadChunk(ctx, coord)
	if err != nil {
		return err
	}
	CopyBox(out, ext, part.dstLo, c.Data, a.ChunkShape, part.lo, part.ext, a.DType.Size)
	return nil
}

// ReadAll reads the whole array; see ReadBox.
func (a *Array) ReadAll(ctx context.Context, limit int64) ([]byte, error) {
	return a.ReadBox(ctx, make([]int64, len(a.Shape)), a.Shape, limit)
}

// WriteBox writes the box [start, stop) to w as ReadBox returns it, and
// the number of bytes written.
func (a *Array) WriteBox(ctx context.Context, w io.Writer, start, stop []int64, limit int64) (int64, error) {
	b, err := a.ReadBox(ctx, start, stop, limit)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// WriteChunk writes the decoded chunk at coord to w: its full chunk shape,
// C order, little endian (bool as 0 or 1), failing with driver.ErrLimit when
// it exceeds limit bytes (limit <= 0: no limit).
func (a *Array) WriteChunk(ctx context.Context, w io.Writer, coord []int64, limit int64) (int64, error) {
	if limit > 0 && a.ChunkBytes() > limit {
		return 0, driver.Limitf("chunk of %d bytes, more than the limit of %d", a.ChunkBytes(), limit)
	}
	c, err := a.ReadChunk(ctx, coord)
	if err != nil {
		return 0, err
	}
	if a.DType.Kind == 'b' {
		for i, v := range c.Data {
			if v != 0 {
				c.Data[i] = 1
			}
		}
	}
	n, err := w.Write(c.Data)
	return int64(n), err
}

// boxPart is where one chunk meets a box: the part of the chunk at lo of
// extent ext goes to dstLo in the box.
type boxPart struct {
	lo, dstLo, ext []int64
}

// forEachChunkInBox calls f, in C order, for every chunk grid coordinate
// that the box [start, stop) touches (the box must not be empty), with
// the part of that chunk inside the box. The slices passed to f are
// reused between calls. It stops at the first error of f or of ctx.
func (a *Array) forEachChunkInBox(ctx context.Context, start, stop []int64, f func(coord []int64, part boxPart) error) error {
	nd := len(start)
	c0, cn := make([]int64, nd), make([]int64, nd)
	for i := range start {
		c0[i] = start[i] / a.ChunkShape[i]
		cn[i] = (stop[i]-1)/a.ChunkShape[i] - c0[i] + 1
	}
	coord := make([]int64, nd)
	part := boxPart{make([]int64, nd), make([]int64, nd), make([]int64, nd)}
	var failed error
	ForEachIndex(cn, func(_ int64, g []int64) {
		if failed != nil {
			return
		}
		if failed = ctx.Err(); failed != nil {
			return
		}
		for i := range g {
			coord[i] = c0[i] + g[i]
			base := coord[i] * a.ChunkShape[i]
			from := max(start[i], base)
			to := min(stop[i], base+a.ChunkShape[i])
			part.lo[i], part.dstLo[i], part.ext[i] = from-base, from-start[i], to-from
		}
		failed = f(coord, part)
	})
	return failed
}
