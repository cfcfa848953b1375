package inflate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
)

// A cold sequential read of a large stream decodes on two cores, the way
// rapidgzip does: the caller's decoder (A) decodes from the start as
// always, while a speculative one (B) starts at about specAt of the
// compressed input, finds a block boundary by trial (a block header that
// parses and at least specMinOut bytes of blocks that decode), and decodes
// from there with a marker inflater, whose output leaves the unknown 32 KiB
// window before its start as references. When A ends a block at exactly
// B's start, A's window resolves B's references and B's blocks are the
// output; a fresh decoder resumes where B stopped (its cap, an error, or
// the final block, which B leaves to it). If A passes B's start without
// ending a block there, B started inside a block and is dropped. B's
// output is used only from a position the sequential decoder reached
// itself, so the output is the sequential output, or an error where the
// sequential decoder would give one.
const (
	specMaxIn   = 64 << 20 // compressed bytes B reads at most
	specMaxOut  = 64 << 20 // bytes B outputs at most
	specMaxWide = 16 << 20 // of which in wide symbols (2 bytes each)
	specMinOut  = 32 << 10 // output a trial start must decode to
	specSearch  = 8 << 20  // bits B tries before it gives up
)

// specMinIn is the compressed size below which no B runs.
const specMinIn = 4 << 20

// specKnobs tune the speculative decoder of a stream (Options.spec); this
// package's tests set them.
type specKnobs struct {
	// minIn replaces specMinIn when not 0; negative means that no
	// stream is too small.
	minIn int64
	// patient makes A wait for B's search once it reaches B's part (on
	// small streams A would often get there first).
	patient bool
	// joins, when not nil, counts the joins that used B's output.
	joins *atomic.Int64
}

// minInput returns the compressed size below which no B runs.
func (k specKnobs) minInput() int64 {
	if k.minIn == 0 {
		return specMinIn
	}
	return k.minIn
}

// specAt is where B starts, as a fraction of the compressed input: B's
// marker inflater is slower than A's decoder, so A takes the larger part.
const specAt = 0.5

// errSplit stops A's WriteTo at B's start.
var errSplit = errors.New("inflate: speculative split")

// A spec is one speculative decoder B and A's tracking of its own exact
// position.
type spec struct {
	c       *cursor
	patient bool // specKnobs.patient
	stop    atomic.Bool
	done    chan struct{}

	start atomic.Int64 // B's start bit, -1 until found
	base  int64        // input byte offset of B's in[0]
	mi    *markerInflater

	// A's side, in A's goroutine.
	drift int64 // bytes A's decoder over-reports (see doc.go)
	lost  bool
	hit   bool
	u     int64 // member output offset at B's start
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
	in := s.srcSize - c.memberIn
	if in < s.spec.minInput() {
		return nil
	}
	maxOut := int64(specMaxOut)
	if s.declared >= 0 {
		maxOut = min(maxOut, s.declared)
	}
	sp := &spec{c: c, done: make(chan struct{}), patient: s.spec.patient}
	sp.start.Store(-1)
	sp.base = c.memberIn + int64(float64(in)*specAt)
	end := min(s.srcSize, sp.base+specMaxIn)
	go sp.runB(r, end, int(maxOut))
	apply(flate.WithEobCallback(sp.onEOB), c.fr)
	return sp
}

// runB is B: it reads its input, searches a start and decodes from it.
// It stops early when the read's context ends, so that a cancelled read
// does not wait for B at the join.
func (sp *spec) runB(r *streamReader, end int64, maxOut int) {
	defer close(sp.done)
	if r.ctx != nil {
		unwatch := context.AfterFunc(r.ctx, func() { sp.stop.Store(true) })
		defer unwatch()
	}
	in := make([]byte, end-sp.base)
	n, err := r.s.src.ReadAt(r.ctx, in, sp.base)
	if n < len(in) && err != nil && err != io.EOF {
		return
	}
	mi := &markerInflater{in: in[:n], out: make([]uint16, min(maxOut, specMaxWide)), out8: make([]byte, maxOut+windowSize), stop: &sp.stop}
	limit := min(int64(n)*8, specSearch)
	for p := int64(0); p < limit && !sp.stop.Load(); p++ {
		// Cheap rejections: a non-final stored or dynamic block.
		if b := in[p/8] >> (p % 8); p%8 < 6 && (b&1 != 0 || (b>>1)&3 == 1 || (b>>1)&3 == 3) {
			continue
		}
		// A start is tentative once it decoded specMinOut bytes, and
		// kept if it decodes to the final block or to the cap.
		err := mi.run(p, func() { sp.start.Store(sp.base*8 + p) })
		if (err == nil || err == errFull) && len(mi.blocks) >= 2 && mi.blocks[len(mi.blocks)-1].out >= specMinOut {
			sp.mi = mi
			sp.start.Store(sp.base*8 + p)
			return
		}
		// A tentative start that fails later was false, or the data
		// is corrupt; the next trials would likely decode the same
		// blocks again, so B gives up.
		if err == errStop || sp.start.Load() >= 0 {
			break
		}
	}
	sp.start.Store(-1)
}

// onEOB is A's end-of-block callback while B runs: it keeps the cursor's
// checkpoints and derives A's exact bit offset.
func (sp *spec) onEOB(cp flate.InflateCheckpoint) {
	c := sp.c
	c.onEOB(cp)
	if sp.lost || sp.hit || cp.Final {
		return
	}
	t, ok := sp.exact(cp.CompressedOffset*8 + int64(cp.BitOffset))
	if !ok {
		sp.lose()
		return
	}
	s := sp.start.Load()
	if s < 0 && sp.patient && t >= sp.base*8 {
		<-sp.done
		s = sp.start.Load()
	}
	switch {
	case s < 0 || t < s:
		return
	case t > s:
		sp.lose()
		return
	}
	// At B's tentative start: wait for B to settle.
	<-sp.done
	switch s = sp.start.Load(); {
	case s < 0 || t > s:
		sp.lose()
		return
	case t < s:
		return
	}
	sp.hit = true
	sp.u = cp.UncompressedOffset
	sp.win = bytes.Clone(cp.Window)
}

// exact returns the exact bit offset of the block end the decoder
// reported at r. The decoder reports 8*drift bits too many (doc.go), and
// drift grows only at the end of a stored block, where the decoder holds
// no bits: there r = 8*(consumed+drift'), while at any other block end
// r = 8*(consumed+drift) - held, held >= 0. So r/8 - consumed above drift
// is a stored block's end and gives the new drift; equal to it, both
// readings give the same offset.
func (sp *spec) exact(r int64) (int64, bool) {
	k := sp.c.consumed()
	if r%8 == 0 && r/8-k > sp.drift {
		sp.drift = r/8 - k
	}
	t := r - 8*sp.drift
	// The decoder holds at most 32 bits it has read.
	if t > 8*k || t < 8*k-64 {
		return 0, false
	}
	return t, true
}

func (sp *spec) lose() {
	sp.lost = true
	sp.stop.Store(true)
}

// rehook follows A into a new member: B's start, if any, was in an
// earlier one unless A has not reached it.
func (sp *spec) rehook() {
	c := sp.c
	if sp.lost || sp.hit {
		return
	}
	sp.drift = 0
	apply(flate.WithEobCallback(sp.onEOB), c.fr)
}

// end stops B if it still runs, without waiting for it, and gives A's
// decoder back its own callback, so that nothing keeps B's buffers.
func (sp *spec) end() {
	sp.stop.Store(true)
	apply(flate.WithEobCallback(sp.c.onEOB), sp.c.fr)
}

// splitWriter passes A's output on until B's start.
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

// join writes B's blocks after A stopped at B's start, then resumes the
// decoder where the last block it could use ended.
func (sp *spec) join(cw *cursorWriter) error {
	c := cw.c
	s := c.s
	mi := sp.mi
	sp.mi = nil
	start := sp.start.Load()
	win := make([]byte, 0, 2*windowSize)
	win = append(win, sp.win...)
	bit, prevOut := start, 0
	var buf []byte
	for _, be := range mi.blocks {
		wide, narrow := mi.at(prevOut, be.out)
		out := narrow
		if wide != nil {
			if cap(buf) < len(wide) {
				buf = make([]byte, len(wide))
			}
			out = buf[:len(wide)]
			if !resolve(out, wide, sp.win) {
				break
			}
		}
		if !fits(c, int64(len(out)), bit/8) {
			break
		}
		// Limits are checked at the block's start, as A would have.
		c.rd.Pos = bit / 8
		c.br.Reset(&c.rd)
		if _, err := cw.Write(out); err != nil {
			return err
		}
		bit, prevOut = sp.base*8+be.bit, be.out
		if len(out) >= windowSize {
			win = append(win[:0], out[len(out)-windowSize:]...)
		} else {
			win = append(win, out...)
			if len(win) > windowSize {
				win = append(win[:0], win[len(win)-windowSize:]...)
			}
		}
		if c.pend == nil && c.out >= c.want {
			s.ix.add(point{
				out: c.out, in: bit / 8, bit: uint8(bit % 8), member: c.member, memberIn: c.memberIn,
				mout: c.mout, crc: c.crc, window: bytes.Clone(win),
			}, s.spacing)
			c.want = s.ix.wantAfter(s.spacing)
		}
	}
	if bit != start {
		if j := s.spec.joins; j != nil {
			j.Add(1)
		}
	}
	if c.pend != nil {
		c.settle()
	}
	c.rd.Pos = bit / 8
	c.br.Reset(&c.rd)
	return c.restart(c.mout, bit/8, uint8(bit%8), win)
}

// resolve writes syms to dst, taking B's window references from win, the
// output before B's start; it reports false if one reaches before it.
func resolve(dst []byte, syms []uint16, win []byte) bool {
	d := len(win) - windowSize
	for i, v := range syms {
		if v < markerBit {
			dst[i] = byte(v)
			continue
		}
		j := d + int(v&^markerBit)
		if j < 0 {
			return false
		}
		dst[i] = win[j]
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
	var dst io.Writer = splitWriter{cw, sp}
	for !c.done {
		_, err := wt.WriteTo(dst)
		switch {
		case cw.err != nil:
			sp.end()
			return cw.total, r.fail(cw.err)
		case err == errSplit:
			err = sp.join(cw)
			sp.end()
			if err != nil {
				return cw.total, r.fail(err)
			}
			dst = cw
			continue
		case err != nil:
			sp.end()
			return cw.total, r.fail(translate(err))
		}
		if err := c.memberEnd(); err != nil {
			sp.end()
			return cw.total, r.fail(err)
		}
		if sp.hit {
			dst = cw
		} else {
			sp.rehook()
		}
	}
	sp.end()
	r.fail(nil)
	return cw.total, nil
}
