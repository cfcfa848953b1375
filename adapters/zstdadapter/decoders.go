package zstdadapter

import (
	"context"
	"io"
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
// with (a *sync.Pool per Limits.MaxWindow in use). It is process-wide on
// purpose, as a sync.Pool of buffers is: a decoder is Reset(nil) before
// it is put back, which drops its input and dictionaries, so it holds no
// data of any file, and decoders made with one window limit are
// interchangeable. The garbage collector frees idle ones. It is not
// derived data that a vfs.Cache budget or Purge is about.
var decoderPools sync.Map

func (b *blob) getDecoder() (*zstd.Decoder, error) {
	p, _ := decoderPools.LoadOrStore(b.lim.MaxWindow, new(sync.Pool))
	if d, ok := p.(*sync.Pool).Get().(*zstd.Decoder); ok {
		return d, nil
	}
	// One goroutine per decoder: streaming is synchronous and measured
	// fastest on 2 cores (see BenchmarkConcurrency), and no goroutine
	// outlives a dropped decoder. The window is capped again here because
	// frames listed by a seek table were not walked at open.
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(uint64(min(b.lim.MaxWindow, zstd.MaxWindowSize))),
		zstd.WithDecoderMaxMemory(1<<62))
}

func putDecoder(d *zstd.Decoder, window int64) {
	d.Reset(nil)
	p, _ := decoderPools.LoadOrStore(window, new(sync.Pool))
	p.(*sync.Pool).Put(d)
}

// A cursor decodes one frame forward.
type cursor struct {
	ra     ctxReaderAt
	dec    *zstd.Decoder
	window int64 // the MaxWindow dec was made with
	frame  int
	pos    int64 // output offset in the frame
	buf    []byte
}

func (c *cursor) release() {
	if c.dec != nil {
		putDecoder(c.dec, c.window)
		c.dec = nil
	}
}

// start positions c at the start of frame i.
func (b *blob) start(c *cursor, i int) error {
	in, end := b.frames[i].in, b.frames[i].end // not size: a pass may be setting it
	if c.dec == nil {
		d, err := b.getDecoder()
		if err != nil {
			return err
		}
		c.dec, c.window = d, b.lim.MaxWindow
	}
	c.ra.src = b.src
	if err := c.dec.Reset(io.NewSectionReader(&c.ra, in, end-in)); err != nil {
		return translate(err, i)
	}
	c.frame, c.pos = i, 0
	return nil
}
