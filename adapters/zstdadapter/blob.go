package zstdadapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// blob is the decompressed file.
type blob struct {
	src    driver.Blob
	frames []frame // out and size are set, and stay, once sized is true
	info   fs.FileInfo
	csize  int64
	lim    vfs.Limits

	disk     vfs.DiskIndex // where the frame table is kept across processes
	seekable bool          // the frame table came from a seek table

	sizeMu sync.Mutex  // serialises the passes that learn the sizes
	sized  atomic.Bool // every frame's size and offset is known
	size   int64       // the output size, once sized

	mu   sync.Mutex
	idle []*cursor

	checkMu  sync.Mutex
	checked  map[int]bool  // frames whose content checksum a decode verified, or that carry none
	checking chan struct{} // held by the read checking a frame (check)
}

var (
	_ driver.Blob       = (*blob)(nil)
	_ io.Closer         = (*blob)(nil)
	_ driver.Compressed = (*blob)(nil)
)

func (b *blob) Stat() fs.FileInfo { return b.info }

// CompressedSize returns the compressed size at the bottom of the nest.
func (b *blob) CompressedSize() int64 { return b.csize }

// Close releases the idle decoders; the blob stays usable.
func (b *blob) Close() error {
	b.mu.Lock()
	idle := b.idle
	b.idle = nil
	b.mu.Unlock()
	for _, c := range idle {
		c.release()
	}
	return nil
}

func (b *blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: b.info.Name(), Err: fs.ErrInvalid}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := b.ensureSized(ctx); err != nil {
		return 0, err
	}
	size := b.size
	if off >= size {
		return 0, io.EOF
	}
	eof := false
	if int64(len(p)) > size-off {
		p, eof = p[:size-off], true
	}
	i := sort.Search(len(b.frames), func(i int) bool { return b.frames[i].out+b.frames[i].size > off })
	c := b.get(i, off)
	c.ra.ctx = ctx
	n, err := b.read(c, p, off)
	if err == nil && c.frame >= 0 && !driver.IsUnverified(ctx) {
		// The read stopped inside frame c.frame: its bytes are returned
		// once the frame's checksum vouches for them.
		err = b.check(ctx, c.frame)
	}
	c.ra.ctx = nil
	if err != nil {
		c.release()
		// The bytes of a read that fails its check are withheld.
		return 0, err
	}
	b.put(c)
	if eof {
		return n, io.EOF
	}
	return n, nil
}

// isChecked reports whether frame i was checked.
func (b *blob) isChecked(i int) bool {
	b.checkMu.Lock()
	defer b.checkMu.Unlock()
	return b.checked[i]
}

// setChecked records that frame i was checked.
func (b *blob) setChecked(i int) {
	b.checkMu.Lock()
	defer b.checkMu.Unlock()
	if b.checked == nil {
		b.checked = make(map[int]bool)
	}
	b.checked[i] = true
}

// check verifies frame i, once per blob: a frame with a content checksum
// is decoded to its end with a decoder of its own, which checks the
// checksum (the reading decoder stays where the read left it, so a
// sequential reader goes on at no cost); a frame without one is taken as
// it is (only its declared size would be checked, at its end). The
// decoder is deterministic: a later read of the checked frame, which
// decodes the same bytes of the same version, gives the checked output.
func (b *blob) check(ctx context.Context, i int) error {
	if b.isChecked(i) {
		return nil
	}
	// One check at a time: concurrent first reads of a frame wait for
	// the one decode that checks it.
	select {
	case b.checking <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-b.checking }()
	if b.isChecked(i) {
		return nil
	}
	var fhd [1]byte
	if n, err := b.src.ReadAt(ctx, fhd[:], b.frames[i].in+4); n < 1 {
		if err == nil || err == io.EOF {
			err = driver.Corruptf("zstd frame header at %d is truncated", b.frames[i].in)
		}
		return err
	}
	if fhd[0]&0x04 != 0 { // Content_Checksum_Flag
		c := &cursor{ra: ctxReaderAt{ctx: ctx}, ahead: b.ahead(i, b.frames[i].size), frame: -1, buf: make([]byte, 32<<10)}
		defer c.release()
		if err := b.start(c, i); err != nil {
			return err
		}
		for size := b.frames[i].size; c.pos < size; {
			m, err := io.ReadFull(c.dec, c.buf[:min(size-c.pos, int64(len(c.buf)))])
			c.pos += int64(m)
			if err != nil {
				return b.frameErr(err, i)
			}
		}
		if err := b.ended(c); err != nil {
			return err
		}
	}
	b.setChecked(i)
	return nil
}

// ended checks that c, which has decoded all of its frame's declared
// output, is at the frame's end: this reads the content checksum.
func (b *blob) ended(c *cursor) error {
	if k, err := c.dec.Read(c.buf[:1]); k > 0 || err != io.EOF {
		if err != nil && err != io.EOF {
			return translate(err, c.frame)
		}
		return driver.Corruptf("zstd frame %d decodes to more than its declared %d bytes", c.frame, b.frames[c.frame].size)
	}
	b.setChecked(c.frame)
	c.frame = -1
	return nil
}

func (b *blob) get(i int, off int64) *cursor {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, c := range b.idle {
		if c.dec != nil && c.frame == i && b.frames[i].out+c.pos <= off {
			b.idle = append(b.idle[:k], b.idle[k+1:]...)
			return c
		}
	}
	if len(b.idle) > 0 {
		c := b.idle[0]
		b.idle = b.idle[1:]
		c.frame = -1
		return c
	}
	return &cursor{frame: -1, buf: make([]byte, 32<<10)}
}

func (b *blob) put(c *cursor) {
	b.mu.Lock()
	if len(b.idle) < 4 {
		b.idle = append(b.idle, c)
		c = nil
	}
	b.mu.Unlock()
	if c != nil {
		c.release()
	}
}

// read fills p from output offset off, crossing frames.
func (b *blob) read(c *cursor, p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		if c.frame < 0 || c.frame >= len(b.frames) || b.frames[c.frame].out+b.frames[c.frame].size <= off {
			i := sort.Search(len(b.frames), func(i int) bool { return b.frames[i].out+b.frames[i].size > off })
			if i == len(b.frames) {
				return n, io.EOF
			}
			if err := b.start(c, i); err != nil {
				return n, err
			}
		}
		f := b.frames[c.frame]
		// Skip to off within the frame.
		for f.out+c.pos < off {
			k := min(off-f.out-c.pos, int64(len(c.buf)))
			m, err := io.ReadFull(c.dec, c.buf[:k])
			c.pos += int64(m)
			if err != nil {
				return n, b.frameErr(err, c.frame)
			}
		}
		want := min(int64(len(p)-n), f.size-c.pos)
		m, err := io.ReadFull(c.dec, p[n:n+int(want)])
		c.pos += int64(m)
		n += m
		off += int64(m)
		if err != nil {
			return n, b.frameErr(err, c.frame)
		}
		if c.pos == f.size {
			// The frame must end here: this reads its checksum.
			if err := b.ended(c); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

func (b *blob) frameErr(err error, i int) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return driver.Corruptf("zstd frame %d decodes to fewer than its declared %d bytes", i, b.frames[i].size)
	}
	return translate(err, i)
}

// translate maps decoder errors to vfs sentinels; errors of the input
// (context, I/O) pass through.
func translate(err error, i int) error {
	var in *inputError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &in):
		return in.err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, driver.ErrCorrupt), errors.Is(err, driver.ErrLimit), errors.Is(err, driver.ErrModified):
		return err
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return driver.Limitf("zstd frame %d: %v", i, err)
	}
	return fmt.Errorf("%w: zstd frame %d: %w", driver.ErrCorrupt, i, err)
}
