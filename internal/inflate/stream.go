package inflate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/flate"

	"github.com/pipefs/pipefs/internal/blobread"
	"github.com/pipefs/pipefs/vfs"
)

// maxIdle is the number of idle cursors a Stream keeps for later reads.
const maxIdle = 4

// verifyLen is how many output bytes after a candidate checkpoint must
// decode identically for the checkpoint to be kept; minVerify is the
// fewest (at the end of a member) worth a checkpoint.
const (
	verifyLen = 4 << 10
	minVerify = 256
)

// A Stream serves the output of a sequence of DEFLATE members at any
// offset. ReadAt is safe for concurrent use.
type Stream struct {
	src      driver.Blob
	srcSize  int64
	framer   Framer
	ix       *Index
	spacing  int64
	lim      vfs.Limits
	rootSize int64 // compressed bytes at the bottom of the nest
	declared int64 // output size declared by the container, -1 if none
	spec     specKnobs
	dropped  atomic.Int64 // checkpoint candidates that no offset reproduced (for tests)

	mu      sync.Mutex
	idle    []*cursor
	held    []byte // verified output at heldOff, decoded past a read to its check
	heldOff int64
	checked []span // the output this stream's reads checked (seen)

	checking chan struct{} // held by the reader checking a member (checkMember)
}

var _ io.Closer = (*Stream)(nil)

// New returns a Stream over src whose first DEFLATE data starts at offset
// first, with fr telling what follows each member. key names the data in
// the index cache, Options.Cache (the canonical pipeline of src with its size
// and modification time, plus anything that changes the meaning of the
// offsets); an empty key makes a private index. Nothing is read until a
// method needs it.
func New(src driver.Blob, first int64, fr Framer, key string, o *Options) *Stream {
	return &Stream{
		src:      src,
		srcSize:  src.Stat().Size(),
		framer:   fr,
		ix:       cached(o.cache(), key, first),
		spacing:  o.spacing(),
		lim:      o.limits(),
		rootSize: driver.CompressedSize(src),
		declared: -1,
		spec:     o.specKnobs(),
		checking: make(chan struct{}, 1),
	}
}

// Forget drops the stream's index from the cache, so that later opens of
// the same key build a new one (a corrupt stream's partial index is not
// kept). The stream keeps using it.
func (s *Stream) Forget() { s.ix.forget() }

// NewMember returns a Stream over one raw DEFLATE member, such as a zip
// member: csize compressed bytes at offset off of src, declared to decode
// to usize bytes with CRC-32 crc. ReadAt serves at most usize bytes. The
// stream is checked against the declaration when a read reaches its end:
// more or fewer bytes, or another CRC-32, give an error matching
// driver.ErrCorrupt. With checkCRC false (zip's data descriptors without a
// CRC), only the sizes are checked.
func NewMember(src driver.Blob, off, csize, usize int64, crc uint32, checkCRC bool, key string, o *Options) *Stream {
	m := &memberFramer{end: off + csize, usize: usize, crc: crc, checkCRC: checkCRC}
	s := New(src, off, m, key, o)
	s.srcSize = off + csize
	s.declared = usize
	return s
}

type memberFramer struct {
	end, usize int64
	crc        uint32
	checkCRC   bool
}

func (m *memberFramer) Next(_ context.Context, _ *bufio.Reader, _ int, end int64, crc uint32, size int64) (int64, bool, error) {
	switch {
	case size != m.usize:
		return 0, false, driver.Corruptf("DEFLATE stream ends after %d bytes, declared %d", size, m.usize)
	case end != m.end:
		return 0, false, driver.Corruptf("DEFLATE data ends at %d, declared to end at %d", end, m.end)
	case m.checkCRC && crc != m.crc:
		return 0, false, driver.Corruptf("CRC-32 %08x, declared %08x", crc, m.crc)
	}
	return 0, false, nil
}

// Index returns the stream's checkpoint index.
func (s *Stream) Index() *Index { return s.ix }

// Size returns the size of the output. When no size was declared and no
// earlier pass reached the end, it decodes the rest of the stream, from
// the last checkpoint, recording checkpoints on the way.
func (s *Stream) Size(ctx context.Context) (int64, error) {
	if s.declared >= 0 {
		return s.declared, nil
	}
	if n := s.ix.Size(); n >= 0 {
		return n, nil
	}
	c, err := s.get(ctx, 1<<62)
	if err != nil {
		return 0, err
	}
	c.rd.Ctx = ctx
	for {
		_, err := c.next(c.scratch)
		if err == io.EOF {
			break
		}
		if err != nil {
			c.release()
			return 0, err
		}
	}
	c.rd.Ctx = nil
	s.put(c)
	return s.ix.Size(), nil
}

// ReadAt reads len(p) bytes of output at off, following io.ReaderAt.
func (s *Stream) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: s.src.Stat().Name(), Err: fs.ErrInvalid}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	size := s.declared
	if size < 0 {
		size = s.ix.Size()
	}
	if size >= 0 {
		if off >= size {
			return 0, io.EOF
		}
		if int64(len(p)) > size-off {
			p = p[:size-off]
		}
	}
	if len(p) == 0 {
		return 0, nil
	}
	if k := s.fromHeld(p, off); k > 0 {
		if k == len(p) {
			if size >= 0 && off+int64(k) == size {
				return k, io.EOF
			}
			return k, nil
		}
		n, err := s.ReadAt(ctx, p[k:], off+int64(k))
		return k + n, err
	}
	c, err := s.get(ctx, off)
	if err != nil {
		return 0, err
	}
	n, err := c.read(ctx, p, off)
	if err == nil && s.declared >= 0 && off+int64(n) == s.declared {
		err = c.finish()
	}
	if err == nil && !driver.IsUnverified(ctx) && !s.seen(off, off+int64(n)) {
		err = c.checkOutput(ctx)
	}
	c.rd.Ctx = nil
	if err != nil && err != io.EOF {
		c.release()
		// The bytes of a read that fails its check are withheld.
		return 0, err
	}
	s.put(c)
	if err == nil && size >= 0 && off+int64(n) == size {
		err = io.EOF
	}
	return n, err
}

// maxHeld bounds the output a stream keeps from decoding past a read to
// its check: two spacings, and at most maxHeldBytes.
const (
	maxHeld      = 2
	maxHeldBytes = 8 << 20
)

// fromHeld copies to p what the stream holds of the output at off, verified
// output decoded past an earlier read, and returns how many bytes it copied.
func (s *Stream) fromHeld(p []byte, off int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if off < s.heldOff || off >= s.heldOff+int64(len(s.held)) {
		return 0
	}
	return copy(p, s.held[off-s.heldOff:])
}

// seen reports whether this stream has checked the output [lo, hi)
// already: a decode of the same input from a checkpoint is deterministic,
// so a later read there needs no check of its own, and its decoder stays
// where the read ends for the next one.
func (s *Stream) seen(lo, hi int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.checked), func(i int) bool { return s.checked[i].end >= hi })
	return i < len(s.checked) && s.checked[i].start <= lo
}

// saw records that this stream checked the output [lo, hi).
func (s *Stream) saw(lo, hi int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checked = addSpan(s.checked, span{lo, hi})
}

// checkOutput decodes on from where a read stopped until the output can be
// checked: to the next checkpoint in a checked member, whose CRC-32 the
// decoder's must equal, or else to the end of the member, whose trailer
// the framer checks. A member no pass has checked is checked once for all
// readers (checkMember), from the furthest checkpoint known in it. The
// output decoded past the read is kept (up to maxHeld spacings) for the
// reads that follow it; the decoder stops at the end of the read's
// member, so nothing of the next member is kept unchecked. A read at the
// end of the stream is checked already.
func (c *cursor) checkOutput(ctx context.Context) (err error) {
	s := c.s
	start, from := c.out, c.from
	buf := s.takeHeld()
	defer func() {
		if err == nil {
			s.keepHeld(start, buf)
			s.saw(from, c.out)
		}
	}()
	limit := min(maxHeld*s.spacing, maxHeldBytes)
	full := false // output was dropped: what follows is not held
	hold := func(n int64) []byte {
		if full = full || int64(len(buf))+n > limit; !full {
			if cap(buf)-len(buf) < int(n) {
				buf = append(make([]byte, 0, max(2*cap(buf), len(buf)+int(n), 256<<10)), buf...)
			}
			return buf[len(buf) : len(buf)+int(n)]
		}
		return c.scratch[:n]
	}
	member := c.member
	c.stopAtEnd = true
	holding := false // the stream's member check is c's (checkMember)
	defer func() {
		c.stopAtEnd = false
		if holding {
			<-s.checking
		}
	}()
	for !c.done && c.member == member {
		want := int64(len(c.scratch))
		q, ok := s.ix.checkAt(c.out)
		switch {
		case ok && q.member == c.member:
			if q.out == c.out {
				if q.crc != c.crc {
					return driver.Corruptf("the output before offset %d does not match its checksum (CRC-32 %08x, the checked pass had %08x)", c.out, c.crc, q.crc)
				}
				return nil
			}
			want = min(want, q.out-c.out)
		case !holding && !s.ix.inMemberChecked(c.out):
			done, self, err := s.checkMember(ctx, c)
			if err != nil || done {
				return err
			}
			if !self {
				continue // checked by another reader: look for its checkpoints
			}
			holding = true
		}
		b := hold(want)
		n, err := c.next(b)
		if &b[0] != &c.scratch[0] {
			buf = buf[:len(buf)+n]
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkMember checks the member c is in, which no pass has checked, once
// for all the stream's readers: a reader that finds another's check under
// way waits for it, then looks for its checkpoints (done and self false).
// When the index knows a checkpoint of the member past c (a pass that
// stopped there), a decoder of its own goes on from the furthest one to
// the member's end, so that a check that a deadline cut short makes
// progress the next time, and c stays where its read ended (done).
// Otherwise the check is c's (self): it returns with the check held, and
// the caller decodes on with c to the member's end, keeping what c
// decodes, then lets the check go (<-s.checking).
func (s *Stream) checkMember(ctx context.Context, c *cursor) (done, self bool, err error) {
	select {
	case s.checking <- struct{}{}:
	case <-ctx.Done():
		return false, false, ctx.Err()
	}
	if s.ix.inMemberChecked(c.out) {
		<-s.checking
		return false, false, nil
	}
	far, ok := s.ix.furthest(c.member)
	if !ok || far.out <= c.out {
		return false, true, nil
	}
	defer func() { <-s.checking }()
	d := cursorPool.Get().(*cursor)
	d.s = s
	defer d.release()
	if err := d.resume(ctx, far); err != nil {
		return false, false, err
	}
	d.stopAtEnd = true
	for !d.done && d.member == far.member {
		if _, err := d.next(d.scratch); err != nil && err != io.EOF {
			return false, false, err
		}
	}
	return true, false, nil
}

// takeHeld takes the stream's held buffer for reuse.
func (s *Stream) takeHeld() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.held[:0]
	s.held, s.heldOff = nil, 0
	return b
}

// keepHeld keeps b, the verified output at off, for later reads.
func (s *Stream) keepHeld(off int64, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(b) > len(s.held) {
		s.held, s.heldOff = b, off
	}
}

// Close releases the stream's idle decoders and the output it holds. The
// stream stays usable.
func (s *Stream) Close() error {
	s.mu.Lock()
	idle := s.idle
	s.idle, s.held = nil, nil
	s.mu.Unlock()
	for _, c := range idle {
		c.release()
	}
	return nil
}

// get returns a cursor positioned at or before off: an idle one that
// stopped there, else one resumed at the last checkpoint before off.
func (s *Stream) get(ctx context.Context, off int64) (*cursor, error) {
	pt := s.ix.lookup(off)
	s.mu.Lock()
	best := -1
	for i, c := range s.idle {
		if c.out <= off && c.out >= pt.out && (best < 0 || c.out > s.idle[best].out) {
			best = i
		}
	}
	if best >= 0 {
		c := s.idle[best]
		s.idle = append(s.idle[:best], s.idle[best+1:]...)
		s.mu.Unlock()
		return c, nil
	}
	s.mu.Unlock()
	// A new decoder, rather than an idle one placed for another reader's
	// next read: two readers taking turns each keep their own.
	c := cursorPool.Get().(*cursor)
	c.s = s
	if err := c.resume(ctx, pt); err != nil {
		c.release()
		return nil, err
	}
	return c, nil
}

// put keeps c for the read that continues it, dropping the decoder idle
// longest when maxIdle are kept.
func (s *Stream) put(c *cursor) {
	s.mu.Lock()
	s.idle = append(s.idle, c)
	var old *cursor
	if len(s.idle) > maxIdle {
		old = s.idle[0]
		s.idle = slices.Delete(s.idle, 0, 1)
	}
	s.mu.Unlock()
	if old != nil {
		old.release()
	}
}

// resetter is the method of klauspost's decompressor that resumes at a
// checkpoint while keeping its buffers.
type resetter interface {
	ResetCP(r io.Reader, cp flate.InflateCheckpoint) error
}

// apply runs a flate reader option on an existing decompressor: ResetCP
// drops the end-of-block callback, and the option's argument type is not
// exported, so it is inferred.
func apply[T any](opt func(T), r any) {
	if t, ok := r.(T); ok {
		opt(t)
	}
}

// A cursor is one running decoder.
type cursor struct {
	s       *Stream
	rd      blobread.Reader
	br      *bufio.Reader
	fr      io.ReadCloser
	scratch []byte
	eob     flate.ReaderOpt // flate.WithEobCallback(c.onEOB), made once

	member   int
	memberIn int64  // input offset of the member's DEFLATE data
	mout     int64  // output delivered in the member
	out      int64  // output delivered in the stream
	crc      uint32 // CRC-32 of the member's delivered output
	drift    int64  // bytes the decoder's input offset is known to be ahead
	want     int64  // output offset after which a checkpoint is wanted
	pend     *pending
	done     bool
	from     int64 // the output offset the decoder resumed at
	// stopAtEnd makes next return at the end of a member, before it
	// decodes any of the next one (checkOutput).
	stopAtEnd bool
}

// pending is a checkpoint candidate waiting for the output after it.
type pending struct {
	out, mout int64
	rbits     int64 // bit offset the library reported
	consumed  int64 // input bytes really consumed at that moment
	window    []byte
	crc       uint32
	crcSet    bool
	buf       []byte
}

var cursorPool = sync.Pool{New: func() any {
	return &cursor{
		br:      bufio.NewReaderSize(nil, 64<<10),
		scratch: make([]byte, 64<<10),
	}
}}

func (c *cursor) release() {
	c.s, c.rd, c.pend = nil, blobread.Reader{}, nil
	cursorPool.Put(c)
}

func (c *cursor) consumed() int64 { return c.rd.Pos - int64(c.br.Buffered()) }

// resume positions c at pt.
func (c *cursor) resume(ctx context.Context, pt point) error {
	s := c.s
	c.rd = blobread.Reader{Ctx: ctx, Src: s.src, Pos: pt.in, End: s.srcSize}
	c.br.Reset(&c.rd)
	c.member, c.memberIn, c.mout, c.out, c.crc = pt.member, pt.memberIn, pt.mout, pt.out, pt.crc
	c.done, c.pend, c.from = false, nil, pt.out
	return c.restart(pt.mout, pt.in, pt.bit, pt.window)
}

func (c *cursor) restart(mout, in int64, bit uint8, window []byte) error {
	cp := flate.InflateCheckpoint{UncompressedOffset: mout, CompressedOffset: in, BitOffset: bit, Window: window}
	c.drift = 0
	c.want = c.s.ix.wantAfter(c.s.spacing)
	if c.eob == nil {
		c.eob = flate.WithEobCallback(c.onEOB)
	}
	if c.fr == nil {
		c.fr = flate.NewReaderOpts(c.br, flate.WithResumeFrom(cp), c.eob)
		return nil
	}
	if err := c.fr.(resetter).ResetCP(c.br, cp); err != nil {
		return translate(err)
	}
	apply(c.eob, c.fr)
	return nil
}

// read fills p with the output at off; c.out <= off.
func (c *cursor) read(ctx context.Context, p []byte, off int64) (int, error) {
	c.rd.Ctx = ctx
	for c.out < off {
		n := int(min(off-c.out, int64(len(c.scratch))))
		if _, err := c.next(c.scratch[:n]); err != nil {
			return 0, err
		}
	}
	n := 0
	for n < len(p) {
		m, err := c.next(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// finish decodes to the end of the stream, which must add no output.
func (c *cursor) finish() error {
	var b [1]byte
	n, err := c.next(b[:])
	if n > 0 {
		return driver.Corruptf("DEFLATE stream is longer than the declared %d bytes", c.s.declared)
	}
	if err == io.EOF {
		return nil
	}
	return err
}

// next reads output into buf, crossing member boundaries; io.EOF at the
// end of the stream.
func (c *cursor) next(buf []byte) (int, error) {
	for {
		if c.done {
			return 0, io.EOF
		}
		n, err := c.fr.Read(buf)
		if n > 0 {
			b := buf[:n]
			if c.pend != nil {
				c.feed(b)
			}
			c.crc = crc32.Update(c.crc, crc32.IEEETable, b)
			c.mout += int64(n)
			c.out += int64(n)
			if lerr := c.check(); lerr != nil {
				return n, lerr
			}
			if err == nil || err == io.EOF {
				return n, nil
			}
		}
		switch {
		case err == nil:
		case err == io.EOF:
			if err := c.memberEnd(); err != nil {
				return 0, err
			}
			if c.stopAtEnd {
				return 0, nil
			}
		default:
			return n, translate(err)
		}
	}
}

// check enforces the limits.
func (c *cursor) check() error {
	l := c.s.lim
	if c.out > l.MaxFileSize {
		return driver.Limitf("decompressed size exceeds Limits.MaxFileSize (%d bytes)", l.MaxFileSize)
	}
	if c.mout > l.MaxOutputSlack(c.consumed()-c.memberIn) {
		return l.RatioError("a DEFLATE member", c.consumed()-c.memberIn)
	}
	if c.out > l.MaxOutputSlack(c.s.rootSize) {
		return l.RatioError("the stream", c.s.rootSize)
	}
	return nil
}

// memberEnd handles the end of a member's DEFLATE data.
func (c *cursor) memberEnd() error {
	if c.pend != nil {
		c.settle()
	}
	s := c.s
	if ctx := c.rd.Ctx; ctx != nil {
		// A stream of many small members is stopped between them, even
		// when its input does not look at the context.
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	end := c.consumed()
	next, more, err := s.framer.Next(c.rd.Ctx, c.br, c.member, end, c.crc, c.mout)
	if err != nil {
		return err
	}
	s.ix.markVerified(c.out-c.mout, c.out)
	if !more {
		c.done = true
		return s.ix.setSize(c.out)
	}
	if next < end {
		return driver.Corruptf("member %d starts at %d, before the end %d of the previous one", c.member+1, next, end)
	}
	c.member++
	c.memberIn, c.mout, c.crc = next, 0, 0
	s.ix.add(point{out: c.out, in: next, member: c.member, memberIn: next}, s.spacing)
	switch cur := c.consumed(); {
	case next == cur:
	case next > cur && next-cur <= int64(c.br.Buffered()):
		c.br.Discard(int(next - cur))
	default:
		c.rd.Pos = next
		c.br.Reset(&c.rd)
	}
	return c.restart(0, next, 0, nil)
}

// onEOB is the decoder's end-of-block callback: it opens a checkpoint
// candidate when one is wanted.
func (c *cursor) onEOB(cp flate.InflateCheckpoint) {
	if c.pend != nil || c.s == nil {
		return
	}
	out := c.out - c.mout + cp.UncompressedOffset
	if out < c.want {
		return
	}
	if c.want = c.s.ix.wantAfter(c.s.spacing); out < c.want {
		return
	}
	c.pend = &pending{
		out:      out,
		mout:     cp.UncompressedOffset,
		rbits:    cp.CompressedOffset*8 + int64(cp.BitOffset),
		consumed: c.consumed(),
		window:   bytes.Clone(cp.Window),
	}
}

// feed gives the candidate the output b, which starts at c.mout.
func (c *cursor) feed(b []byte) {
	p := c.pend
	if !p.crcSet {
		k := p.mout - c.mout
		if k > int64(len(b)) {
			return
		}
		p.crc = crc32.Update(c.crc, crc32.IEEETable, b[:k])
		p.crcSet = true
		p.buf = make([]byte, 0, verifyLen)
		b = b[k:]
	}
	p.buf = append(p.buf, b[:min(len(b), verifyLen-len(p.buf))]...)
	if len(p.buf) == verifyLen {
		c.settle()
	}
}

// settle decides the candidate: it tries the input offsets the
// checkpoint can be at, and records the first that decodes to the output
// seen after it.
func (c *cursor) settle() {
	p := c.pend
	c.pend = nil
	if !p.crcSet || len(p.buf) < minVerify {
		return
	}
	// The library reports rbits = (consumed+drift)*8 - nb, where nb (the
	// bits it holds) is at most 64 here, and drift only grows.
	limit := p.consumed * 8
	d := max(c.drift, (p.rbits-limit+7)/8)
	for ; p.rbits-8*d >= limit-64; d++ {
		t := p.rbits - 8*d
		if c.verify(t, p) {
			c.drift = d
			c.s.ix.add(point{
				out: p.out, in: t / 8, bit: uint8(t % 8), member: c.member, memberIn: c.memberIn,
				mout: p.mout, crc: p.crc, window: p.window,
			}, c.s.spacing)
			return
		}
	}
	c.s.dropped.Add(1)
}

var verifierPool = sync.Pool{New: func() any {
	return &verifier{br: bufio.NewReaderSize(nil, 8<<10), buf: make([]byte, verifyLen)}
}}

type verifier struct {
	rd  blobread.Reader
	br  *bufio.Reader
	fr  io.ReadCloser
	buf []byte
}

// verify reports whether decoding from bit offset t with p's window gives
// p.buf.
func (c *cursor) verify(t int64, p *pending) bool {
	v := verifierPool.Get().(*verifier)
	defer verifierPool.Put(v)
	v.rd = blobread.Reader{Ctx: c.rd.Ctx, Src: c.s.src, Pos: t / 8, End: c.s.srcSize}
	defer func() { v.rd = blobread.Reader{} }()
	v.br.Reset(&v.rd)
	cp := flate.InflateCheckpoint{UncompressedOffset: p.mout, CompressedOffset: t / 8, BitOffset: uint8(t % 8), Window: p.window}
	if v.fr == nil {
		v.fr = flate.NewReaderOpts(v.br, flate.WithResumeFrom(cp))
	} else if err := v.fr.(resetter).ResetCP(v.br, cp); err != nil {
		return false
	}
	buf := v.buf[:len(p.buf)]
	if _, err := io.ReadFull(v.fr, buf); err != nil {
		return false
	}
	return bytes.Equal(buf, p.buf)
}

// translate maps decoder errors to vfs sentinels.
func translate(err error) error {
	var ce flate.CorruptInputError
	var ie flate.InternalError
	switch {
	case errors.As(err, &ce):
		return driver.Corruptf("corrupt DEFLATE data near input offset %d", int64(ce))
	case errors.As(err, &ie):
		return driver.Corruptf("corrupt DEFLATE data: %v", err)
	case err == io.ErrUnexpectedEOF:
		return driver.Corruptf("truncated DEFLATE data")
	}
	return err
}
