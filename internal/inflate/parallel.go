package inflate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"

	"github.com/pipefs/pipefs/internal/blobread"
)

// A cold sequential read of a large stream decodes on two cores (doc.go).
// The caller's decoder (A) decodes from the start as always, while a
// helper goroutine (B) decodes segments ahead of it: B's first segment
// starts segIn bytes of input past A's start, and each next one about
// 4*segIn bytes of output past where A will resume (helper.distance).
// When the index has a checkpoint there, B starts at it with its window.
// Otherwise, for each segment B finds a block
// boundary by trial (a block header that parses and at least specMinOut
// bytes of blocks that decode), decodes from there with the marker
// inflater, whose output leaves the unknown 32 KiB window before its start
// as references, and, as soon as the last 32 KiB of its output hold no
// reference, goes on with the library's decoder from that block boundary
// with that window, at the library's speed. B goes on until A reaches the
// segment's start, then stops at its next block end, so that the two
// share the work whatever their speeds.
//
// When A ends a block at exactly the start of B's segment, A's window
// resolves the segment's references, its output is written, and A
// resumes where the segment ended. If A passes the start without ending a
// block there, B started inside a block and the segment is dropped. B's
// output is used only from a position the sequential decoder reached
// itself, so the output is the sequential output, or an error where the
// sequential decoder would give one.
const (
	defaultSegIn = 3 << 20  // compressed bytes between A's resumption and B's next start
	segMaxOut    = 16 << 20 // output of a B segment at most
	segMaxWide   = 8 << 20  // of which in wide symbols (2 bytes each)
	segSlack     = 1 << 20  // input B's marker phase reads past its segment
	specMinOut   = 32 << 10 // output a trial start must decode to
	specSearch   = 8 << 20  // bits B tries in a segment before it gives up
)

// specMinIn is the compressed size below which no B runs.
const specMinIn = 4 << 20

// specKnobs tune the speculative decoder of a stream (Options.spec); this
// package's tests set them.
type specKnobs struct {
	// minIn replaces specMinIn when not 0; negative means that no
	// stream is too small.
	minIn int64
	// segIn replaces defaultSegIn when not 0.
	segIn int64
	// patient makes A wait for B's next segment at each block end, and
	// for B's search of a segment once A reaches where it begins, and
	// B decode at least patientBlocks blocks of each segment, so that
	// they join whatever the timing.
	patient bool
	// joins, when not nil, counts the segments whose output was used.
	joins *atomic.Int64
}

// patientBlocks is how many blocks B decodes of each segment in patient
// mode before it ends the segment for A.
const patientBlocks = 8

// minInput returns the compressed size below which no B runs.
func (k specKnobs) minInput() int64 {
	if k.minIn == 0 {
		return specMinIn
	}
	return k.minIn
}

func (k specKnobs) segment() int64 {
	if k.segIn <= 0 {
		return defaultSegIn
	}
	return k.segIn
}

// errSplit stops a decoder's WriteTo at a segment boundary.
var errSplit = errors.New("inflate: speculative split")

// A segment is one of B's parts of the input.
type segment struct {
	base int64 // input byte where B's search begins

	// A segment that starts at a checkpoint of the index, pt, is matched
	// by output offset: member and mout (-1 for a searched segment). They
	// are set before A sees the segment.
	pt     *point
	member int
	mout   int64
	pad    int // zero bytes before pt's window in narrow

	stop     atomic.Bool  // A passed it: drop it
	finish   atomic.Bool  // A reached its start: end it at the next block end
	start    atomic.Int64 // B's start bit, -1 if none; set before searched is closed
	searched chan struct{}
	done     chan struct{}

	// Set before done is closed. The segment's output is the wide
	// symbols, then the bytes of narrow after its first 32 KiB (the
	// window at the switch); blocks[i].out counts it that way, and
	// blocks[i].bit is an input bit offset.
	wide   []uint16
	narrow []byte
	blocks []blockEnd
}

// A helper is B: it decodes its segments in order, handing each to A
// through segs before it starts on it.
type helper struct {
	s      *Stream
	ctx    context.Context
	segIn  int64
	maxOut int
	segs   chan *segment
	free   chan []byte   // narrow buffers A is done with
	wides  chan []uint16 // wide buffers A is done with

	quitOnce sync.Once
	quit     chan struct{}
	cur      atomic.Pointer[segment]
	apos     atomic.Int64 // input byte A's decoder reached (at its last block end)

	minBlocks int // blocks of a segment B decodes before A may end it
	mi        *markerInflater
	in        []byte
	br        *bufio.Reader
	fr        io.ReadCloser
}

func (h *helper) halt() {
	h.quitOnce.Do(func() {
		close(h.quit)
		if seg := h.cur.Load(); seg != nil {
			seg.stop.Store(true)
		}
	})
}

// run decodes segments until the input ends or A no longer wants them.
func (h *helper) run() {
	defer close(h.segs)
	unwatch := context.AfterFunc(h.ctx, h.halt)
	defer unwatch()
	from, dist := h.apos.Load(), h.segIn
	for {
		// B starts dist past where A resumes, or halfway through the
		// rest when less than twice that is left.
		left := h.s.srcSize - from
		if left < h.segIn/2 {
			return
		}
		base := from + min(dist, left/2)
		seg := &segment{base: base, mout: -1, searched: make(chan struct{}), done: make(chan struct{})}
		if pt, ok := h.s.ix.pointIn(base, base+4*h.segIn); ok {
			// A matches a segment that starts at a checkpoint by output
			// offset: the bit offset of a checkpoint can be a few bits
			// off the block end when a stored block follows (its
			// padding decodes the same).
			seg.pt, seg.member, seg.mout = &pt, pt.member, pt.mout
		}
		seg.start.Store(-1)
		select {
		case h.segs <- seg:
		case <-h.quit:
			return
		}
		h.cur.Store(seg)
		select {
		case <-h.quit:
			seg.stop.Store(true)
		default:
		}
		h.decode(seg)
		// A resumes where the segment ends, or goes on from where it
		// is when it drops the segment.
		from = max(h.apos.Load(), base)
		if n := len(seg.blocks); n > 0 {
			from = max(from, seg.blocks[n-1].bit/8)
			dist = h.distance(seg)
		} else {
			// A got there first: on data that hardly compresses, A
			// moves through the input fast.
			dist = min(2*dist, 4*h.segIn)
		}
	}
}

// distance returns how far past A's resumption B's next segment starts:
// about 4 times segIn of output, at the compression ratio of seg, between
// segIn and 4 times segIn of input. On data that hardly compresses, A
// then takes as long to get there as on text, and B's search has ended.
func (h *helper) distance(seg *segment) int64 {
	last := seg.blocks[len(seg.blocks)-1]
	in, out := last.bit/8-seg.start.Load()/8, int64(last.out)
	if in <= 0 || out <= 0 {
		return h.segIn
	}
	return min(max(4*h.segIn*in/out, h.segIn), 4*h.segIn)
}

// decode fills seg and closes its channels.
func (h *helper) decode(seg *segment) {
	searched := false
	defer func() {
		if !searched {
			close(seg.searched)
		}
		close(seg.done)
	}()
	s := h.s
	if pt := seg.pt; pt != nil {
		// A checkpoint of the index: B starts there with its window.
		start := pt.in*8 + int64(pt.bit)
		seg.start.Store(start)
		close(seg.searched)
		searched = true
		buf := h.buffer()
		seg.pad = windowSize - len(pt.window)
		buf = append(buf, make([]byte, seg.pad)...)
		buf = append(buf, pt.window...)
		seg.narrow, seg.blocks = h.fast(seg, buf, []blockEnd{{bit: start}})
		return
	}
	end := min(s.srcSize, seg.base+2*h.segIn+segSlack)
	n := int(end - seg.base)
	if cap(h.in) < n {
		h.in = make([]byte, n)
	}
	in := h.in[:n]
	k, err := s.src.ReadAt(h.ctx, in, seg.base)
	if k < n && err != nil && err != io.EOF {
		return
	}
	in = in[:k]
	mi := h.mi
	mi.in, mi.stop, mi.finish, mi.minBlocks, mi.handoff = in, &seg.stop, &seg.finish, h.minBlocks, true
	limit := min(int64(k)*8, specSearch, h.segIn*8)
	var rerr error
	start := int64(-1)
	for p := int64(0); p < limit && !seg.stop.Load(); p++ {
		// Cheap rejections: a non-final stored or dynamic block.
		if b := in[p/8] >> (p % 8); p%8 < 6 && (b&1 != 0 || (b>>1)&3 == 1 || (b>>1)&3 == 3) {
			continue
		}
		found := false
		rerr = mi.run(p, func() {
			found = true
			seg.start.Store(seg.base*8 + p)
			close(seg.searched)
			searched = true
		})
		if found {
			start = p
			break
		}
		if rerr == errStop {
			return
		}
	}
	if start < 0 {
		return
	}
	// Every block decoded from a start A reaches is A's block; when an
	// error ends them (corrupt data, or the end of in), A goes on after
	// the last.
	if mi.n <= 1<<20 {
		seg.wide = append([]uint16(nil), mi.out[:mi.n]...)
	} else {
		// A long wide part: the segment takes the scratch itself.
		seg.wide = mi.out[:mi.n]
		select {
		case mi.out = <-h.wides:
		default:
			mi.out = make([]uint16, segMaxWide)
		}
	}
	blocks := make([]blockEnd, len(mi.blocks), len(mi.blocks)+256)
	for i, be := range mi.blocks {
		blocks[i] = blockEnd{bit: seg.base*8 + be.bit, out: be.out}
	}
	if mi.narrow {
		buf := append(h.buffer(), mi.out8[:mi.n8]...)
		if rerr == errNarrow {
			buf, blocks = h.fast(seg, buf, blocks)
		}
		seg.narrow = buf
	}
	seg.blocks = blocks
}

// buffer returns an empty buffer for a segment's narrow output.
func (h *helper) buffer() []byte {
	select {
	case buf := <-h.free:
		return buf
	default:
		return make([]byte, 0, h.maxOut+windowSize)
	}
}

// fast decodes the rest of seg with the library's decoder, from the last
// block end of blocks, with buf (the narrow output, its last 32 KiB the
// window) growing. It returns buf and blocks cut at the segment's last
// complete block.
func (h *helper) fast(seg *segment, buf []byte, blocks []blockEnd) ([]byte, []blockEnd) {
	s := h.s
	last := blocks[len(blocks)-1]
	nw := len(seg.wide)
	rd := &blobread.Reader{Ctx: h.ctx, Src: s.src, Pos: last.bit / 8, End: s.srcSize}
	h.br.Reset(rd)
	cp := flate.InflateCheckpoint{CompressedOffset: last.bit / 8, BitOffset: uint8(last.bit % 8), Window: buf[len(buf)-windowSize+seg.pad:]}
	w := &segWriter{buf: buf, limit: windowSize + h.maxOut - nw, end: -1, stop: &seg.stop}
	var drift int64
	eob := flate.WithEobCallback(func(cp flate.InflateCheckpoint) {
		if w.end >= 0 || cp.Final {
			return
		}
		t, ok := exactBit(cp.CompressedOffset*8+int64(cp.BitOffset), rd.Pos-int64(h.br.Buffered()), &drift)
		if !ok {
			w.end = len(w.buf) // cut below, at the last block known exactly
			return
		}
		out := last.out + int(cp.UncompressedOffset)
		blocks = append(blocks, blockEnd{bit: t, out: out})
		if seg.finish.Load() && len(blocks) > h.minBlocks {
			w.end = windowSize + out - nw
		}
	})
	if h.fr == nil {
		h.fr = flate.NewReaderOpts(h.br, flate.WithResumeFrom(cp), eob)
	} else if err := h.fr.(resetter).ResetCP(h.br, cp); err != nil {
		return buf, blocks
	} else {
		apply(eob, h.fr)
	}
	h.fr.(io.WriterTo).WriteTo(w)
	apply(flate.WithEobCallback(func(flate.InflateCheckpoint) {}), h.fr)
	// Keep the blocks whose output is all in buf.
	i := len(blocks)
	for i > 0 && blocks[i-1].out > nw && windowSize+blocks[i-1].out-nw > len(w.buf) {
		i--
	}
	blocks = blocks[:i]
	if e := blocks[i-1].out; e >= nw {
		w.buf = w.buf[:windowSize+e-nw]
	}
	return w.buf, blocks
}

// segWriter collects B's output from the library's decoder, up to end
// (the segment's end, once known) or limit.
type segWriter struct {
	buf   []byte
	limit int
	end   int // -1 until known
	stop  *atomic.Bool
}

func (w *segWriter) Write(b []byte) (int, error) {
	if w.stop.Load() {
		return 0, errStop
	}
	if w.end >= 0 && len(w.buf)+len(b) >= w.end {
		k := max(w.end-len(w.buf), 0)
		w.buf = append(w.buf, b[:k]...)
		return k, errSplit
	}
	if len(w.buf)+len(b) > w.limit {
		return 0, errFull
	}
	w.buf = append(w.buf, b...)
	return len(b), nil
}

// exactBit returns the exact bit offset of the block end a decoder
// reported at r, k input bytes consumed. The decoder reports 8*drift bits
// too many (doc.go), and drift grows only at the end of a stored block,
// where the decoder holds no bits: there r = 8*(k+drift'), while at any
// other block end r = 8*(k+drift) - held, held >= 0. So r/8 - k above
// drift is a stored block's end and gives the new drift; equal to it,
// both readings give the same offset.
func exactBit(r, k int64, drift *int64) (int64, bool) {
	if r%8 == 0 && r/8-k > *drift {
		*drift = r/8 - k
	}
	t := r - 8**drift
	// The decoder holds at most 32 bits it has read.
	if t > 8*k || t < 8*k-64 {
		return 0, false
	}
	return t, true
}

// A spec is A's side: the segment it is heading for and its own exact
// position.
type spec struct {
	c       *cursor
	h       *helper
	patient bool
	joins   *atomic.Int64

	cur   *segment
	off   bool  // no more segments
	drift int64 // of A's decoder (see exactBit)
	hit   bool  // A ended a block at cur's start
	u     int64 // member output offset there
	win   []byte
}

// speculate starts B when r is a cold read of a large stream on a
// machine with two cores or more; it returns nil otherwise.
func (r *streamReader) speculate() *spec {
	c, s := r.c, r.s
	cold := r.cold
	r.cold = false
	if !cold || runtime.GOMAXPROCS(0) < 2 || c.out != 0 || c.member != 0 {
		return nil
	}
	if s.srcSize-c.memberIn < s.spec.minInput() {
		return nil
	}
	maxOut := int64(segMaxOut)
	if s.declared >= 0 {
		maxOut = min(maxOut, s.declared)
	}
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	segIn := s.spec.segment()
	h := &helper{
		s: s, ctx: ctx, segIn: segIn, maxOut: int(maxOut),
		segs: make(chan *segment, 1), free: make(chan []byte, 2), wides: make(chan []uint16, 1), quit: make(chan struct{}),
		mi: &markerInflater{out: make([]uint16, segMaxWide), out8: make([]byte, 2*windowSize+1<<20)},
		br: bufio.NewReaderSize(nil, 64<<10),
	}
	if s.spec.patient {
		h.minBlocks = patientBlocks
	}
	h.apos.Store(c.memberIn)
	go h.run()
	sp := &spec{c: c, h: h, patient: s.spec.patient, joins: s.spec.joins}
	apply(flate.WithEobCallback(sp.onEOB), c.fr)
	return sp
}

// onEOB is A's end-of-block callback while B runs: it keeps the cursor's
// checkpoints, derives A's exact bit offset and compares it with the
// start of the segment ahead.
func (sp *spec) onEOB(cp flate.InflateCheckpoint) {
	sp.c.onEOB(cp)
	if sp.off || sp.hit || cp.Final {
		return
	}
	// When A's exact bit offset is not known (exactBit's bounds fail),
	// segments that start at a checkpoint are still matched by output
	// offset, and the others are dropped once A passes their base.
	k := sp.c.consumed()
	t, exact := exactBit(cp.CompressedOffset*8+int64(cp.BitOffset), k, &sp.drift)
	if !exact {
		t = 8*k - 64
	}
	sp.h.apos.Store(t / 8)
	for {
		seg := sp.cur
		if seg == nil {
			var next *segment
			ok := true
			if sp.patient {
				next, ok = <-sp.h.segs
			} else {
				select {
				case next, ok = <-sp.h.segs:
				default:
					return
				}
			}
			if !ok {
				sp.off = true
				return
			}
			sp.cur, seg = next, next
		}
		if seg.mout >= 0 {
			switch m := sp.c.member; {
			case m < seg.member || m == seg.member && cp.UncompressedOffset < seg.mout:
				return
			case m == seg.member && cp.UncompressedOffset == seg.mout && sp.take(seg, cp):
				return
			}
			sp.drop()
			continue
		}
		if t < seg.base*8 {
			return
		}
		if !exact {
			sp.drop()
			continue
		}
		// While B searches, A goes on: B's start is before
		// base+segIn (the search's limit), so A gives the segment up
		// only once it passed that.
		if !sp.patient {
			select {
			case <-seg.searched:
			default:
				if t >= (seg.base+sp.h.segIn)*8 {
					sp.drop()
					continue
				}
				return
			}
		}
		<-seg.searched
		st := seg.start.Load()
		if st > t {
			return
		}
		if st == t && sp.take(seg, cp) {
			return
		}
		sp.drop()
	}
}

// take asks B to end seg, which starts where A is, at its next block end,
// waits for it, and reports whether it holds blocks for A.
func (sp *spec) take(seg *segment, cp flate.InflateCheckpoint) bool {
	seg.finish.Store(true)
	<-seg.done
	if len(seg.blocks) == 0 {
		return false
	}
	sp.hit, sp.u, sp.win = true, cp.UncompressedOffset, bytes.Clone(cp.Window)
	return true
}

// drop gives up the current segment.
func (sp *spec) drop() {
	sp.cur.stop.Store(true)
	sp.cur = nil
}

// rehook follows A into a new member (a fresh decoder).
func (sp *spec) rehook() {
	if sp.off {
		return
	}
	sp.drift = 0
	apply(flate.WithEobCallback(sp.onEOB), sp.c.fr)
}

// end stops B without waiting for it, and gives A's decoder back its own
// callback, so that nothing keeps B's buffers.
func (sp *spec) end() {
	sp.h.halt()
	if sp.cur != nil {
		sp.cur.stop.Store(true)
		sp.cur = nil
	}
	apply(flate.WithEobCallback(sp.c.onEOB), sp.c.fr)
}

// splitWriter passes A's output on until the start of the segment A
// reached.
type splitWriter struct {
	cw *cursorWriter
	sp *spec
}

func (w splitWriter) Write(b []byte) (int, error) {
	sp, c := w.sp, w.cw.c
	if !sp.hit || c.mout+int64(len(b)) <= sp.u {
		return w.cw.Write(b)
	}
	k := int(sp.u - c.mout)
	if k > 0 {
		if n, err := w.cw.Write(b[:k]); err != nil {
			return n, err
		}
	}
	return k, errSplit
}

// joinGroup is how much of a segment's output the join writes at once at
// most (a checkpoint wanted also ends a write).
const joinGroup = 4 << 20

// join writes the segment's blocks after A stopped at its start, then
// resumes A's decoder where the last block it could use ended.
func (sp *spec) join(cw *cursorWriter) error {
	c := cw.c
	s := c.s
	seg := sp.cur
	sp.cur, sp.hit = nil, false
	start := seg.start.Load()
	nw := len(seg.wide)
	// ext is the window before the segment, then the segment's wide
	// output as it is resolved; valid is where A's window begins in it.
	ext := make([]byte, windowSize+nw)
	valid := windowSize - len(sp.win)
	copy(ext[valid:windowSize], sp.win)
	out := func(a, b int) []byte {
		if b <= nw {
			return ext[windowSize+a : windowSize+b]
		}
		return seg.narrow[windowSize+a-nw : windowSize+b-nw]
	}
	window := func(x int) []byte {
		if x >= nw && seg.narrow != nil {
			return seg.narrow[max(x-nw, seg.pad) : x-nw+windowSize]
		}
		return ext[max(x, valid) : x+windowSize]
	}
	// The blocks are checked and resolved one by one; their output is
	// written in groups, up to the end of the last block accepted.
	written, resolved, done := 0, 0, 0
	bit, groupBit := start, start
	flush := func() error {
		if done == written {
			return nil
		}
		c.rd.Pos = groupBit / 8
		c.br.Reset(&c.rd)
		for written < done {
			e := done
			if written < nw && nw < done {
				e = nw
			}
			if _, err := cw.Write(out(written, e)); err != nil {
				return err
			}
			written = e
		}
		return nil
	}
	for _, be := range seg.blocks {
		if e := min(be.out, nw); e > resolved {
			if !resolve(ext[windowSize+resolved:windowSize+e], seg.wide[resolved:e], ext, valid) {
				break
			}
			resolved = e
		}
		// Limits are checked at the block's start, as A would have.
		if !fits(c, int64(be.out-written), bit/8) {
			break
		}
		groupBit, bit, done = bit, be.bit, be.out
		wanted := c.pend == nil && c.out+int64(done-written) >= c.want
		if !wanted && done-written < joinGroup {
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if wanted && c.pend == nil && c.out >= c.want {
			s.ix.add(point{
				out: c.out, in: bit / 8, bit: uint8(bit % 8), member: c.member, memberIn: c.memberIn,
				mout: c.mout, crc: c.crc, window: bytes.Clone(window(done)),
			}, s.spacing)
			c.want = s.ix.wantAfter(s.spacing)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if bit != start && sp.joins != nil {
		sp.joins.Add(1)
	}
	if c.pend != nil {
		c.settle()
	}
	win := sp.win
	if done > 0 {
		win = window(done)
	}
	c.rd.Pos = bit / 8
	c.br.Reset(&c.rd)
	err := c.restart(c.mout, bit/8, uint8(bit%8), win)
	if seg.narrow != nil {
		select {
		case sp.h.free <- seg.narrow[:0]:
		default:
		}
	}
	if cap(seg.wide) == segMaxWide {
		select {
		case sp.h.wides <- seg.wide[:segMaxWide]:
		default:
		}
	}
	if err != nil {
		return err
	}
	sp.drift = 0
	apply(flate.WithEobCallback(sp.onEOB), c.fr)
	return nil
}

// resolve writes syms to dst, taking B's window references from ext,
// whose first 32 KiB are the output before B's start, valid from index
// valid; it reports false if one reaches before that.
func resolve(dst []byte, syms []uint16, ext []byte, valid int) bool {
	for i, v := range syms {
		if v < markerBit {
			dst[i] = byte(v)
			continue
		}
		j := int(v &^ markerBit)
		if j < valid {
			return false
		}
		dst[i] = ext[j]
	}
	return true
}

// fits reports whether n more bytes of output stay within the declared
// size and the limits, with the input consumed up to in, as cursor.check
// and cursorWriter.Write would judge them.
func fits(c *cursor, n, in int64) bool {
	s, l := c.s, c.s.lim
	out, mout := c.out+n, c.mout+n
	return (s.declared < 0 || out <= s.declared) &&
		out <= l.MaxFileSize &&
		mout <= l.MaxOutputSlack(in-c.memberIn) &&
		out <= l.MaxOutputSlack(s.rootSize)
}

// writeToSpec is WriteTo while B runs.
func (r *streamReader) writeToSpec(w io.Writer, wt io.WriterTo, sp *spec) (int64, error) {
	c := r.c
	c.rd.Ctx = r.ctx
	cw := &cursorWriter{c: c, w: w, ctx: r.ctx, declared: r.s.declared}
	dst := splitWriter{cw, sp}
	// Whatever happens to w, B stops (halt is idempotent).
	defer sp.h.halt()
	// sp.end runs before r.fail, which may give the cursor away.
	fail := func(err error) (int64, error) {
		sp.end()
		return cw.total, r.fail(err)
	}
	for !c.done {
		_, err := wt.WriteTo(dst)
		switch {
		case cw.err != nil:
			return fail(cw.err)
		case err == errSplit:
			if err := sp.join(cw); err != nil {
				return fail(err)
			}
			wt = c.fr.(io.WriterTo)
			continue
		case err != nil:
			return fail(translate(err))
		}
		if err := c.memberEnd(); err != nil {
			return fail(err)
		}
		sp.rehook()
	}
	sp.end()
	r.fail(nil)
	return cw.total, nil
}
