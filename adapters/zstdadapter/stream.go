package zstdadapter

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"sort"

	"github.com/pipefs/pipefs/vfs/driver"
)

var _ driver.Streamer = (*blob)(nil)

// Stream reads the output forward from off with one decoder, frame after
// frame, as io.Copy of the file does. Frames without a content size are
// measured on the way: a stream that reaches the end lays the frames out,
// so Size needs no pass of its own. Checksums, declared sizes and the
// limits are checked as ReadAt checks them; a bad frame ends the stream
// with an error matching driver.ErrCorrupt or driver.ErrLimit, never io.EOF.
// On two cores a large frame is decoded ahead of the reader (see ahead);
// Close ends the goroutines of a frame under way.
func (b *blob) Stream(ctx context.Context, off int64) (io.ReadCloser, error) {
	if off < 0 {
		return nil, &fs.PathError{Op: "read", Path: b.info.Name(), Err: fs.ErrInvalid}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &streamReader{b: b, ctx: ctx, buf: make([]byte, 32<<10)}
	b.sizeMu.Lock()
	r.sizes = make([]int64, len(b.frames))
	for i, f := range b.frames {
		r.sizes[i] = f.size
	}
	r.learn = !b.sized.Load()
	b.sizeMu.Unlock()
	if r.learn {
		r.skip = off
		return r, nil
	}
	r.i = sort.Search(len(b.frames), func(i int) bool { return b.frames[i].out+b.frames[i].size > off })
	if r.i < len(b.frames) {
		r.out = b.frames[r.i].out
		r.skip = off - r.out
	}
	return r, nil
}

// streamReader is what Stream returns.
type streamReader struct {
	b     *blob
	ctx   context.Context
	sizes []int64 // frame sizes, -1 for those not yet known
	learn bool    // record the sizes at the end
	i     int     // the current frame
	c     *cursor // decoding frame i; nil between frames
	n     int64   // output of frame i so far
	out   int64   // output of the stream so far
	skip  int64   // output still to discard before off
	buf   []byte
	err   error // sticky
}

func (r *streamReader) Read(p []byte) (int, error) {
	for r.err == nil {
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		if r.c == nil {
			if r.i >= len(r.b.frames) {
				r.err = r.end()
				break
			}
			r.c = &cursor{ra: ctxReaderAt{ctx: r.ctx}, ahead: r.b.ahead(r.i, r.sizes[r.i]), frame: -1}
			if err := r.b.start(r.c, r.i); err != nil {
				r.err = err
				break
			}
			r.n = 0
		}
		dst := p
		if r.skip > 0 {
			dst = r.buf[:min(int64(len(r.buf)), r.skip)]
		}
		if len(dst) == 0 {
			return 0, nil
		}
		want := r.sizes[r.i]
		if want >= 0 {
			dst = dst[:min(int64(len(dst)), want-r.n)]
		}
		k := 0
		var err error
		if len(dst) > 0 {
			k, err = r.c.dec.Read(dst)
		} else {
			// The declared end: the frame must end here (this reads
			// its checksum).
			var one [1]byte
			if k, err = r.c.dec.Read(one[:]); k > 0 {
				err = driver.Corruptf("zstd frame %d decodes to more than its declared %d bytes", r.i, want)
				k = 0
			}
		}
		r.n += int64(k)
		r.out += int64(k)
		if lerr := r.limits(); lerr != nil {
			r.err = lerr
			break
		}
		switch {
		case err == io.EOF:
			if want >= 0 && r.n != want {
				r.err = driver.Corruptf("zstd frame %d decodes to fewer than its declared %d bytes", r.i, want)
				break
			}
			r.sizes[r.i] = r.n
			r.b.setChecked(r.i)
			r.c.release()
			r.c = nil
			r.i++
		case err != nil:
			r.err = translate(err, r.i)
		}
		if k == 0 {
			continue
		}
		if r.skip > 0 {
			r.skip -= int64(k)
			continue
		}
		return k, nil
	}
	r.drop()
	return 0, r.err
}

// limits checks the output against Limits.MaxFileSize and MaxRatio.
func (r *streamReader) limits() error {
	lim := r.b.lim
	csize := r.b.frames[r.i].end - r.b.frames[r.i].in
	switch {
	case r.out > lim.MaxFileSize:
		return driver.Limitf("zstd output exceeds Limits.MaxFileSize (%d bytes)", lim.MaxFileSize)
	case r.n > lim.MaxOutputSlack(csize):
		return lim.RatioError(fmt.Sprintf("zstd frame %d", r.i), csize)
	case r.out > lim.MaxOutputSlack(r.b.csize):
		return lim.RatioError("zstd stream", r.b.csize)
	}
	return nil
}

// end is reached after the last frame: it records what the pass learnt.
func (r *streamReader) end() error {
	if r.learn {
		b := r.b
		b.sizeMu.Lock()
		defer b.sizeMu.Unlock()
		if !b.sized.Load() {
			if _, err := b.setSizes(r.ctx, r.sizes); err != nil {
				return err
			}
		}
	}
	return io.EOF
}

func (r *streamReader) drop() {
	if r.c != nil {
		r.c.release()
		r.c = nil
	}
}

func (r *streamReader) Close() error {
	r.drop()
	if r.err == nil {
		r.err = fs.ErrClosed
	}
	return nil
}

// WriteTo copies the rest of the output to w, frame by frame, handing w
// the decoder's own buffers (zstd.Decoder is an io.WriterTo), which saves
// a copy of every byte.
func (r *streamReader) WriteTo(w io.Writer) (int64, error) {
	fw := &frameWriter{r: r, w: w}
	for r.err == nil {
		if err := r.ctx.Err(); err != nil {
			return fw.total, err
		}
		if r.i >= len(r.b.frames) {
			r.err = r.end()
			break
		}
		if r.c == nil {
			r.c = &cursor{ra: ctxReaderAt{ctx: r.ctx}, ahead: r.b.ahead(r.i, r.sizes[r.i]), frame: -1}
			if err := r.b.start(r.c, r.i); err != nil {
				r.err = err
				break
			}
			r.n = 0
		}
		fw.err = nil
		_, err := r.c.dec.WriteTo(fw)
		switch {
		case fw.err != nil:
			r.err = fw.err
		case err != nil:
			r.err = translate(err, r.i)
		case r.sizes[r.i] >= 0 && r.n != r.sizes[r.i]:
			r.err = driver.Corruptf("zstd frame %d decodes to fewer than its declared %d bytes", r.i, r.sizes[r.i])
		default:
			r.sizes[r.i] = r.n
			r.b.setChecked(r.i)
			r.c.release()
			r.c = nil
			r.i++
		}
	}
	r.drop()
	if r.err == io.EOF {
		return fw.total, nil
	}
	return fw.total, r.err
}

// frameWriter receives a frame's output for WriteTo: it counts it,
// checks the limits and the declared size, drops what lies before the
// stream's offset, and passes the rest to w.
type frameWriter struct {
	r     *streamReader
	w     io.Writer
	total int64
	err   error // ours or w's, as opposed to the decoder's
}

func (fw *frameWriter) Write(b []byte) (int, error) {
	r := fw.r
	k := len(b)
	var long error
	if want := r.sizes[r.i]; want >= 0 && r.n+int64(len(b)) > want {
		long = driver.Corruptf("zstd frame %d decodes to more than its declared %d bytes", r.i, want)
		b = b[:want-r.n]
	}
	r.n += int64(len(b))
	r.out += int64(len(b))
	if err := r.limits(); err != nil {
		fw.err = err
		return 0, err
	}
	if err := r.ctx.Err(); err != nil {
		fw.err = err
		return 0, err
	}
	if r.skip > 0 {
		s := min(r.skip, int64(len(b)))
		r.skip -= s
		b = b[s:]
	}
	if len(b) > 0 {
		n, err := fw.w.Write(b)
		fw.total += int64(n)
		if err == nil && n < len(b) {
			err = io.ErrShortWrite
		}
		if err != nil {
			fw.err = err
			return 0, err
		}
	}
	if long != nil {
		fw.err = long
		return 0, long
	}
	return k, nil
}
