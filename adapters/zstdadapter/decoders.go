package zstdadapter

import (
	"context"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/vfs/driver"
)

// ctxReaderAt reads the input with the context of the current call.
type ctxReaderAt struct {
	ctx context.Context
	src driver.Blob
}

// ReadAt reads from the input; an error other than io.EOF comes back as an
// *inputError, so that translate can tell it from the decoder's own.
func (r *ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.src.ReadAt(r.ctx, p, off)
	if err != nil && err != io.EOF {
		err = &inputError{err}
	}
	return n, err
}

// An inputError is an error of the input, which the decoder hands back:
// translate unwraps it, so it is never reported as corrupt data.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// decoderPools holds idle decoders by the window limit they were made
// with and the number of blocks they decode ahead (a *sync.Pool per
// poolKey in use). It is process-wide on purpose, as a sync.Pool of
// buffers is: a decoder is Reset(nil) before it is put back, which drops
// its input and dictionaries and ends its goroutines, so it holds no data
// of any file, and decoders made alike are interchangeable. The garbage
// collector frees idle ones. It is not derived data that a vfs.Cache
// budget or Purge is about.
var decoderPools sync.Map

// A poolKey is how a decoder was made.
type poolKey struct {
	window int64 // Limits.MaxWindow
	ahead  int   // blocks in flight: zstd.WithDecoderConcurrency
}

// streamAhead is how many blocks a decoder that reads a frame from its
// start to its end has in flight (zstd.WithDecoderConcurrency): its
// goroutines decode literals, decode sequences and execute them while the
// reader hashes and consumes earlier blocks. On two cores the stages
// overlap only with a deep queue: the library alone decodes a 256 MiB
// frame in about 1.2 the time of one goroutine with 2 blocks in flight
// (its default there), 0.8 with 8, 0.74 with 16 and 0.72 with 32 (see
// BenchmarkConcurrency); 16 holds about 40 MiB, 32 about 60 MiB.
const streamAhead = 16

// streamMinFrame is the smallest frame, by the size it declares, that is
// decoded ahead: a decoder that decodes ahead starts its goroutines for
// each frame, which costs more than a frame of 256 KiB gains (1.24 the
// time of one goroutine); frames of 1 MiB take 0.92 of it, of 4 MiB 0.78.
// A frame that declares no size is decoded ahead when its compressed
// bytes are half that or more: a frame of 512 KiB or more of
// incompressible data, of about 2.5 MiB of the benchmarks' Go sources.
const streamMinFrame = 1 << 20

// ahead returns how many blocks a decoder of frame i, read from its start
// to its end, has in flight: 1 (it decodes on the reading goroutine) on
// one core, where the stages cannot overlap, and for small frames, else
// streamAhead. size is the frame's size, -1 when unknown.
func (b *blob) ahead(i int, size int64) int {
	switch {
	case runtime.GOMAXPROCS(0) < 2,
		size >= 0 && size < streamMinFrame,
		size < 0 && b.frames[i].end-b.frames[i].in < streamMinFrame/2:
		return 1
	}
	return streamAhead
}

// getDecoder returns an idle decoder made as k says, or a new one.
func getDecoder(k poolKey) (*zstd.Decoder, error) {
	p, _ := decoderPools.LoadOrStore(k, new(sync.Pool))
	if d, ok := p.(*sync.Pool).Get().(*zstd.Decoder); ok {
		return d, nil
	}
	// A decoder of one block in flight decodes on the goroutine that
	// reads it, and no goroutine outlives a dropped one; one with more has
	// goroutines while a frame is under way, which putDecoder's Reset
	// ends. The window is capped again here because frames listed by a
	// seek table were not walked at open.
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(k.ahead),
		zstd.WithDecoderMaxWindow(uint64(min(k.window, zstd.MaxWindowSize))),
		zstd.WithDecoderMaxMemory(1<<62))
}

// putDecoder resets d, which ends its goroutines, and keeps it idle.
func putDecoder(d *zstd.Decoder, key poolKey) {
	d.Reset(nil)
	p, _ := decoderPools.LoadOrStore(key, new(sync.Pool))
	p.(*sync.Pool).Put(d)
}

// A cursor decodes one frame forward.
type cursor struct {
	ra    ctxReaderAt
	ahead int // blocks in flight for the decoder start gets (see ahead); 0 is 1
	dec   *zstd.Decoder
	key   poolKey // what dec was made with
	frame int
	pos   int64 // output offset in the frame
	buf   []byte
}

func (c *cursor) release() {
	if c.dec != nil {
		putDecoder(c.dec, c.key)
		c.dec = nil
	}
}

// start positions c at the start of frame i.
func (b *blob) start(c *cursor, i int) error {
	in, end := b.frames[i].in, b.frames[i].end // not size: a pass may be setting it
	if c.dec == nil {
		k := poolKey{window: b.lim.MaxWindow, ahead: max(c.ahead, 1)}
		d, err := getDecoder(k)
		if err != nil {
			return err
		}
		c.dec, c.key = d, k
	}
	c.ra.src = b.src
	if err := c.dec.Reset(io.NewSectionReader(&c.ra, in, end-in)); err != nil {
		return translate(err, i)
	}
	c.frame, c.pos = i, 0
	return nil
}
