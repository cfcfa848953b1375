package zstdadapter

import (
	"context"
	"fmt"
	"io"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// layout sets the output offsets of the frames, whose sizes are all known,
// and checks the limits.
func (b *blob) layout() error {
	var out int64
	lim := b.lim
	for i := range b.frames {
		f := &b.frames[i]
		f.out = out
		if f.size > lim.MaxOutputSlack(f.end-f.in) {
			return lim.RatioError(fmt.Sprintf("zstd frame %d, declaring %d bytes,", i, f.size), f.end-f.in)
		}
		if f.size > lim.MaxFileSize-out { // out <= MaxFileSize: no overflow
			return driver.Limitf("zstd output exceeds Limits.MaxFileSize (%d bytes)", lim.MaxFileSize)
		}
		out += f.size
		if out > lim.MaxOutputSlack(b.csize) {
			return lim.RatioError("zstd stream", b.csize)
		}
	}
	b.size = out
	return nil
}

// knownSize returns the size once the frames are laid out, else -1.
func (b *blob) knownSize() int64 {
	if b.sized.Load() {
		return b.size
	}
	return -1
}

// measureAll decodes the frames without a content size to learn their
// sizes, then lays the frames out. It runs once; a concurrent streamed
// pass may get there first.
func (b *blob) measureAll(ctx context.Context) (int64, error) {
	b.sizeMu.Lock()
	defer b.sizeMu.Unlock()
	if b.sized.Load() {
		return b.size, nil
	}
	sizes := make([]int64, len(b.frames))
	for i, f := range b.frames {
		sizes[i] = f.size
		if f.size < 0 {
			n, err := b.measure(ctx, i, b.lim)
			if err != nil {
				return 0, err
			}
			sizes[i] = n
		}
	}
	return b.setSizes(ctx, sizes)
}

// setSizes records the frame sizes a pass learnt, within ctx; b.sizeMu is
// held.
func (b *blob) setSizes(ctx context.Context, sizes []int64) (int64, error) {
	for i := range b.frames {
		b.frames[i].size = sizes[i]
	}
	if err := b.layout(); err != nil {
		return 0, err
	}
	b.sized.Store(true)
	b.storeFrames(ctx)
	return b.size, nil
}

// ensureSized lays the frames out before a random read, decoding the
// frames without a content size if no pass has yet.
func (b *blob) ensureSized(ctx context.Context) error {
	if b.sized.Load() {
		return nil
	}
	_, err := b.measureAll(ctx)
	return err
}

// measure decodes frame i to learn its size.
func (b *blob) measure(ctx context.Context, i int, lim vfs.Limits) (int64, error) {
	c := &cursor{ra: ctxReaderAt{ctx: ctx}, ahead: b.ahead(i, -1), buf: make([]byte, 64<<10)}
	defer c.release()
	if err := b.start(c, i); err != nil {
		return 0, err
	}
	in, end := b.frames[i].in, b.frames[i].end
	bound := min(lim.MaxOutputSlack(end-in), lim.MaxFileSize)
	var n int64
	for {
		k, err := c.dec.Read(c.buf)
		n += int64(k)
		if n > bound {
			if n > lim.MaxFileSize {
				return 0, driver.Limitf("zstd frame %d decompresses to more than Limits.MaxFileSize (%d bytes)", i, lim.MaxFileSize)
			}
			return 0, lim.RatioError(fmt.Sprintf("zstd frame %d", i), end-in)
		}
		if err == io.EOF {
			b.setChecked(i) // the decoder checked the content checksum
			return n, nil
		}
		if err != nil {
			return 0, translate(err, i)
		}
	}
}
