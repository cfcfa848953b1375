// Package streamblob serves a compressed stream that can only be decoded
// forward (bzip2, xz) as a [driver.Blob] and a [driver.Streamer].
//
// ReadAt keeps one decoder: a read at or after where it stopped continues
// it (decoding and discarding up to the offset), and a read before it
// starts over from the beginning. Reads of one blob are serialised. Stream
// decodes with its own decoder, so io.Copy of the file costs one pass.
//
// The size is the declared size when the format has an index that gives
// it (xz), else it is learnt by the first pass that reaches the end, and
// Stat().Size() runs that pass on first use (see internal/lazysize). A
// stream whose output differs from its declared size, a decoder error, or
// a truncated input gives an error matching driver.ErrCorrupt; output past
// Limits.MaxFileSize, or past both Limits.RatioFloor and Limits.MaxRatio
// times the compressed bytes at the bottom of the nest
// (Limits.MaxOutputSlack), an error matching
// driver.ErrLimit. Errors of the input (context, I/O) pass through.
//
// A ReadAt that stops short of the end returns its bytes only once some
// pass has decoded the stream to its end, which runs every check the
// format carries: the first such read runs that pass (see Blob.ReadAt).
// When that pass finds an output of at most 256 KiB (smallOutput), the
// blob keeps it, checked, and serves every later ReadAt and Stream from
// it: a small stream is decoded twice at most, whatever the reads.
package streamblob

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/blobread"
	"github.com/pipefs/pipefs/internal/lazysize"
	"github.com/pipefs/pipefs/vfs"
)

// Config describes the format.
type Config struct {
	// Format names the format in messages ("bzip2").
	Format string
	// NewReader returns a decoder of the compressed bytes r.
	NewReader func(r io.Reader) (io.Reader, error)
	// Size is the output size the format declares, or -1.
	Size int64
	// Name, Mode, ModTime and Sys describe the output.
	Name    string
	Mode    fs.FileMode
	ModTime time.Time
	Sys     any
}

// A Blob is a forward-only decompressed stream.
type Blob struct {
	src   driver.Blob
	cfg   Config
	lim   vfs.Limits
	root  int64 // compressed bytes at the bottom of the nest
	info  fs.FileInfo
	csize int64

	mu  sync.Mutex
	cur *decoder // the ReadAt decoder, nil when none

	sizeMu sync.Mutex
	size   int64 // the output size once a pass reached the end, else -1
	bad    error // the corruption or limit a check pass met, sticky

	checked atomic.Bool            // a pass reached the end: every check of the format passed
	whole   atomic.Pointer[[]byte] // the checked output, when at most smallOutput bytes
}

// smallOutput is the largest output a blob keeps once a pass has decoded
// and checked it (see the package doc).
const smallOutput = 256 << 10

var (
	_ driver.Blob       = (*Blob)(nil)
	_ driver.Streamer   = (*Blob)(nil)
	_ io.Closer         = (*Blob)(nil)
	_ driver.Compressed = (*Blob)(nil)
)

// New returns the blob of src decoded as cfg says. ctx is the open's
// context, whose values (not its cancellation) a Size pass uses.
func New(ctx context.Context, src driver.Blob, cfg Config, lim vfs.Limits) *Blob {
	b := &Blob{src: src, cfg: cfg, lim: lim, root: driver.CompressedSize(src), csize: src.Stat().Size(), size: -1}
	if cfg.Size >= 0 {
		b.size = cfg.Size
		b.info = &driver.FileInfo{FName: cfg.Name, FSize: cfg.Size, FMode: cfg.Mode.Perm(), FModTime: cfg.ModTime, FSys: cfg.Sys}
	} else {
		b.info = lazysize.New(ctx, cfg.Name, cfg.Mode, cfg.ModTime, cfg.Sys, b.measure, b.known, lim.MaxFileSize)
	}
	return b
}

// Stat describes the decompressed stream. Unless Config.Size gave the
// size, its Size decodes the stream to its end on first use, when no pass
// has learnt it yet (see lazysize).
func (b *Blob) Stat() fs.FileInfo { return b.info }

// CompressedSize returns the compressed size at the bottom of the nest.
func (b *Blob) CompressedSize() int64 { return b.root }

func (b *Blob) known() int64 {
	b.sizeMu.Lock()
	defer b.sizeMu.Unlock()
	return b.size
}

// ended records the size a pass found at the end of the stream.
func (b *Blob) ended(n int64) error {
	b.sizeMu.Lock()
	defer b.sizeMu.Unlock()
	if b.size >= 0 && b.size != n {
		if b.cfg.Size >= 0 {
			return driver.Corruptf("%s stream decodes to %d bytes, its index says %d", b.cfg.Format, n, b.size)
		}
		return driver.Corruptf("%s stream decoded to %d bytes, and to %d before", b.cfg.Format, n, b.size)
	}
	b.size = n
	b.checked.Store(true)
	return nil
}

// measure decodes the whole stream to learn its size.
func (b *Blob) measure(ctx context.Context) (int64, error) {
	d, err := b.start(ctx)
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 64<<10)
	var kept []byte
	for {
		n, err := d.read(buf)
		if d.out <= smallOutput {
			kept = append(kept, buf[:n]...)
		}
		if err == io.EOF {
			if d.out <= smallOutput {
				b.whole.Store(&kept)
			}
			return d.out, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// kept returns the checked output the blob keeps, nil when none.
func (b *Blob) kept() []byte {
	if w := b.whole.Load(); w != nil {
		return *w
	}
	return nil
}

// A decoder is one pass over the stream.
type decoder struct {
	b    *Blob
	rd   *blobread.Reader
	r    io.Reader
	out  int64 // output delivered
	err  error // sticky; io.EOF at the end
	idle int   // reads in a row that returned nothing
}

// maxIdleReads is how many empty reads in a row a decoder may return
// before the stream is taken as stuck (io.ErrNoProgress, as bufio does).
const maxIdleReads = 100

func (b *Blob) start(ctx context.Context) (*decoder, error) {
	rd := &blobread.Reader{Ctx: ctx, Src: b.src, End: b.csize}
	// Decoders read small pieces; each read of the input is a ReadAt.
	r, err := b.cfg.NewReader(bufio.NewReaderSize(markedReader{rd}, 64<<10))
	if err != nil {
		return nil, b.translate(err)
	}
	return &decoder{b: b, rd: rd, r: r}, nil
}

// read reads output into p; io.EOF at the end, once the size checks out.
func (d *decoder) read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	d.out += int64(n)
	if n == 0 && err == nil && len(p) > 0 {
		if d.idle++; d.idle > maxIdleReads {
			err = fmt.Errorf("%s decoder: %w", d.b.cfg.Format, io.ErrNoProgress)
		}
	} else {
		d.idle = 0
	}
	b := d.b
	switch {
	case d.out > b.lim.MaxFileSize:
		err = driver.Limitf("%s: decompressed size exceeds Limits.MaxFileSize (%d bytes)", b.cfg.Format, b.lim.MaxFileSize)
	case d.out > b.lim.MaxOutputSlack(b.root):
		err = b.lim.RatioError(b.cfg.Format+" stream", b.root)
	case b.cfg.Size >= 0 && d.out > b.cfg.Size:
		err = driver.Corruptf("%s stream decodes to more than the %d bytes its index says", b.cfg.Format, b.cfg.Size)
	case err == io.EOF:
		err = b.ended(d.out)
		if err == nil {
			err = io.EOF
		}
	case err != nil:
		err = b.translate(err)
	}
	if err != nil {
		d.err = err
		if err != io.EOF {
			n = 0 // never hand out bytes past a limit or a lie
		}
	}
	return n, err
}

// markedReader marks the errors of the input as *inputError, so that
// translate tells them from the decoder's own whatever the decoder does
// with them.
type markedReader struct{ r io.Reader }

func (m markedReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if err != nil && err != io.EOF {
		err = &inputError{err}
	}
	return n, err
}

// An inputError is an error of the input, handed back by a decoder.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// translate maps decoder errors to driver.ErrCorrupt; errors of the input
// pass through.
func (b *Blob) translate(err error) error {
	var in *inputError
	if errors.As(err, &in) {
		return in.err
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, driver.ErrCorrupt), errors.Is(err, driver.ErrLimit), errors.Is(err, driver.ErrModified):
		return err
	case err == io.ErrUnexpectedEOF:
		return driver.Corruptf("truncated %s stream", b.cfg.Format)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err // the input failed
	}
	return fmt.Errorf("%w: %s: %w", driver.ErrCorrupt, b.cfg.Format, err)
}

// ReadAt reads at off, continuing the blob's decoder or starting over.
func (b *Blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: b.cfg.Name, Err: fs.ErrInvalid}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if n := b.known(); n >= 0 {
		if off >= n {
			return 0, io.EOF
		}
		p = p[:min(int64(len(p)), n-off)]
	}
	if len(p) == 0 {
		return 0, nil
	}
	if w := b.kept(); w != nil {
		n := copy(p, w[off:])
		if off+int64(n) == int64(len(w)) {
			return n, io.EOF
		}
		return n, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.cur
	if d == nil || d.out > off || d.err != nil && d.err != io.EOF {
		var err error
		if d, err = b.start(ctx); err != nil {
			return 0, err
		}
		b.cur = d
	}
	d.rd.Ctx = ctx
	defer func() { d.rd.Ctx = nil }()
	n, err := d.readAt(p, off)
	if err == nil && !driver.IsUnverified(ctx) {
		err = b.check(ctx)
	}
	if err != nil && err != io.EOF {
		b.cur = nil // start over next time: the input may have failed
		// The bytes of a read that fails its check are withheld.
		return 0, err
	}
	return n, err
}

// check makes sure that a pass has decoded the whole stream, which
// checks every integrity check the format carries (block and stream
// CRCs), before a read that stopped short of the end returns its bytes:
// the first such read runs the pass, with a decoder of its own, so the
// reading decoder goes on where it stopped. The decoders are
// deterministic: a later read of the same bytes of the same version gives
// the checked output. The corruption or limit a pass meets is kept and
// returned to every later read.
func (b *Blob) check(ctx context.Context) error {
	if b.checked.Load() {
		return nil
	}
	b.sizeMu.Lock()
	bad := b.bad
	b.sizeMu.Unlock()
	if bad != nil {
		return bad
	}
	_, err := b.measure(ctx)
	if errors.Is(err, driver.ErrCorrupt) || errors.Is(err, driver.ErrLimit) {
		b.sizeMu.Lock()
		b.bad = err
		b.sizeMu.Unlock()
	}
	return err
}

// readAt skips to off and fills p; d.out <= off.
func (d *decoder) readAt(p []byte, off int64) (int, error) {
	var scratch []byte
	for d.out < off {
		if scratch == nil {
			scratch = make([]byte, min(off-d.out, 64<<10))
		}
		if _, err := d.read(scratch[:min(int64(len(scratch)), off-d.out)]); err != nil {
			return 0, err
		}
	}
	n := 0
	for n < len(p) {
		k, err := d.read(p[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	if d.b.known() == d.out && d.err == nil {
		// The end: the stream must end here too, which checks its
		// integrity check and trailer.
		var one [1]byte
		k, err := d.read(one[:])
		if k > 0 {
			d.err = driver.Corruptf("%s stream decodes to more than %d bytes", d.b.cfg.Format, d.out-1)
			return n, d.err
		}
		if err != io.EOF {
			return n, err
		}
	}
	if d.err == io.EOF {
		return n, io.EOF
	}
	return n, nil
}

// Stream reads the output from off with a decoder of its own.
func (b *Blob) Stream(ctx context.Context, off int64) (io.ReadCloser, error) {
	if off < 0 {
		return nil, &fs.PathError{Op: "read", Path: b.cfg.Name, Err: fs.ErrInvalid}
	}
	if w := b.kept(); w != nil {
		return io.NopCloser(bytes.NewReader(w[min(off, int64(len(w))):])), nil
	}
	d, err := b.start(ctx)
	if err != nil {
		return nil, err
	}
	d.rd.Ctx = ctx
	if _, err := d.readAt(nil, off); err != nil && err != io.EOF {
		return nil, err
	}
	return &stream{d: d, ctx: ctx}, nil
}

type stream struct {
	d   *decoder
	ctx context.Context
}

func (s *stream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	return s.d.read(p)
}

func (s *stream) Close() error {
	if s.d.err == nil {
		s.d.err = fs.ErrClosed
	}
	return nil
}

// Close drops the blob's decoder; the blob stays usable.
func (b *Blob) Close() error {
	b.mu.Lock()
	b.cur = nil
	b.mu.Unlock()
	return nil
}
