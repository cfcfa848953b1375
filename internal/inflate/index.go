package inflate

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// DefaultSpacing is the default distance in output bytes between two
// checkpoints. With 1 MiB, a random read decodes 0.5 MiB on average (about
// 2 ms at 300 MB/s) and the index costs 32 KiB per MiB of output, 3% of the
// decompressed size; see the package benchmarks for the measurements.
const DefaultSpacing = 1 << 20

// Options configure a Stream. A nil *Options means the defaults.
type Options struct {
	// Spacing is the distance in output bytes between checkpoints; 0
	// means DefaultSpacing. It is rounded up to at least 64 KiB.
	Spacing int64
	// Limits bound the output; zero fields mean the vfs defaults.
	Limits vfs.Limits
	// Cache holds the index of the stream under its key, so that every
	// open of the same data with the same cache shares it; nil means
	// vfs.DefaultCache(). The windows of an index's checkpoints count
	// against the cache's budget as the index grows.
	Cache *vfs.Cache

	// spec tunes the speculative decoder; this package's tests set it.
	spec specKnobs
}

func (o *Options) cache() *vfs.Cache {
	if o == nil || o.Cache == nil {
		return vfs.DefaultCache()
	}
	return o.Cache
}

func (o *Options) specKnobs() specKnobs {
	if o == nil {
		return specKnobs{}
	}
	return o.spec
}

// EffectiveSpacing returns the checkpoint spacing o gives: DefaultSpacing
// for 0, and at least 64 KiB. o may be nil.
func (o *Options) EffectiveSpacing() int64 { return o.spacing() }

func (o *Options) spacing() int64 {
	if o == nil || o.Spacing == 0 {
		return DefaultSpacing
	}
	return max(o.Spacing, 64<<10)
}

func (o *Options) limits() vfs.Limits {
	if o == nil {
		return vfs.Limits{}.Effective()
	}
	return o.Limits.Effective()
}

// A Framer describes what surrounds the DEFLATE streams of a Stream: the
// gzip member headers and trailers, or a zip member's declared sizes.
type Framer interface {
	// Next is called when the DEFLATE data of member i (0-based) ends at
	// offset end of the input (just past its last byte), with the CRC-32
	// and the size of its output. It checks them against what the
	// container declares, and returns the offset of the next member's
	// DEFLATE data, or more == false at the end of the stream. Errors
	// should match driver.ErrCorrupt for bad data, and be the errors of
	// the input (its context's error included) unchanged otherwise.
	//
	// r reads the input forward from end, through the decoder's buffer:
	// a framer that reads the trailer and the next header from r costs no
	// extra read of the input, which matters when the input is itself
	// decompressed and a read behind its decoder resumes at a checkpoint.
	// The decoder resumes at next whatever Next consumed of r.
	Next(ctx context.Context, r *bufio.Reader, i int, end int64, crc uint32, size int64) (next int64, more bool, err error)
}

// A point is a place decoding can resume at.
type point struct {
	out      int64  // output offset in the stream
	in       int64  // input byte offset of the next compressed bit
	bit      uint8  // bits of input byte in already consumed (0-7)
	member   int    // index of the member
	memberIn int64  // input offset of the member's DEFLATE data
	mout     int64  // output offset in the member
	crc      uint32 // CRC-32 of the member's output before mout
	window   []byte // the output before the point, nil at a member start
}

// An Index is the shared, growing set of resume points of one stream.
type Index struct {
	c   *vfs.Cache // the cache that holds it, nil for a private index
	key string

	mu         sync.Mutex
	points     []point // sorted by out; points[0] starts member 0
	lastMember int     // the last member whose start was seen
	size       int64   // total output size, -1 until the end was reached
	bytes      int64   // window bytes held
	// checked holds the output spans of the members that passed their
	// trailer check (CRC-32 and size), sorted and merged: the checkpoints
	// inside them hold CRCs of checked output, so a later decode that
	// reaches one checks the bytes it produced.
	checked []span
	first   point // a check in member 0 kept elsewhere (SetFirstCheck); out 0 if none
}

func newIndex(c *vfs.Cache, key string, first int64) *Index {
	return &Index{
		c:      c,
		key:    key,
		points: []point{{in: first, memberIn: first}},
		size:   -1,
	}
}

// Stats reports the number of checkpoints of the index and the bytes their
// windows hold.
func (ix *Index) Stats() (points int, bytes int64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.points), ix.bytes
}

// lookup returns the last point at or before off.
func (ix *Index) lookup(off int64) point {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	i := sort.Search(len(ix.points), func(i int) bool { return ix.points[i].out > off })
	return ix.points[max(i-1, 0)]
}

// pointIn returns the first checkpoint inside a member (one with a
// window) whose input offset is in [lo, hi).
func (ix *Index) pointIn(lo, hi int64) (point, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	i := sort.Search(len(ix.points), func(i int) bool { return ix.points[i].in >= lo })
	for ; i < len(ix.points) && ix.points[i].in < hi; i++ {
		if ix.points[i].window != nil {
			return ix.points[i], true
		}
	}
	return point{}, false
}

// next returns the output offset after which a new checkpoint is wanted.
func (ix *Index) wantAfter(spacing int64) int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.points[len(ix.points)-1].out + spacing
}

// add appends p if it is still wanted and reports whether it did. A
// checkpoint inside a member is wanted spacing bytes of output past the
// last point. A member's start is wanted when it is spacing bytes of
// output or of input past the last point: a stream of a million empty
// members gets one point per spacing bytes of input, not one per member,
// so the index stays proportional to the data.
func (ix *Index) add(p point, spacing int64) bool {
	ix.mu.Lock()
	last := ix.points[len(ix.points)-1]
	ok := false
	switch {
	case p.window == nil && p.mout == 0:
		// A member start, seen first by the decoder at the frontier.
		if p.member == ix.lastMember+1 && p.out >= last.out {
			ix.lastMember = p.member
			ok = p.out >= last.out+spacing || p.in >= last.in+spacing
		}
	case p.member == ix.lastMember && p.out >= last.out+spacing:
		ok = true
	}
	if ok {
		ix.points = append(ix.points, p)
		ix.bytes += int64(len(p.window))
	}
	ix.mu.Unlock()
	if ok && len(p.window) > 0 {
		ix.grew(int64(len(p.window)))
	}
	return ok
}

// A span is the output [start, end) of members that passed their check.
type span struct{ start, end int64 }

// markVerified records that the member whose output spans [start, end)
// passed its trailer check.
func (ix *Index) markVerified(start, end int64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.checked = addSpan(ix.checked, span{start, end})
}

// addSpan adds t to the sorted, merged spans s.
func addSpan(s []span, t span) []span {
	i := sort.Search(len(s), func(i int) bool { return s[i].end >= t.start })
	j := i
	for j < len(s) && s[j].start <= t.end {
		t.start, t.end = min(t.start, s[j].start), max(t.end, s[j].end)
		j++
	}
	return slices.Insert(slices.Delete(s, i, j), i, t)
}

// Verified returns the output offset up to which the stream's checksums
// have been checked: every member ending at or before it passed its
// trailer check.
func (ix *Index) Verified() int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(ix.checked) > 0 && ix.checked[0].start == 0 {
		return ix.checked[0].end
	}
	return 0
}

// inChecked reports whether out lies in a checked member: a checkpoint
// there holds the CRC-32 of checked output. ix.mu is held.
func (ix *Index) inChecked(out int64) bool {
	i := sort.Search(len(ix.checked), func(i int) bool { return ix.checked[i].end >= out })
	return i < len(ix.checked) && ix.checked[i].start <= out
}

// inMemberChecked reports whether the output at out lies in a member that
// passed its check.
func (ix *Index) inMemberChecked(out int64) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.inChecked(out)
}

// furthest returns the last checkpoint of the index inside member m.
func (ix *Index) furthest(m int) (point, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	i := sort.Search(len(ix.points), func(i int) bool { return ix.points[i].member > m })
	if i > 0 && ix.points[i-1].member == m {
		return ix.points[i-1], true
	}
	return point{}, false
}

// checkAt returns the first checkpoint at or after off, in the member that
// starts at or before off, that a decode can check its output against:
// one in a checked member, or the check given by SetFirstCheck.
func (ix *Index) checkAt(off int64) (point, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var p point
	ok := false
	i := sort.Search(len(ix.points), func(i int) bool { return ix.points[i].out >= off })
	if i < len(ix.points) && ix.inChecked(ix.points[i].out) {
		p, ok = ix.points[i], true
	}
	if f := ix.first; f.out >= off && f.out > 0 && (!ok || f.out < p.out) {
		p, ok = f, true
	}
	return p, ok
}

// FirstCheck returns the output offset and CRC-32 of the first checkpoint
// inside member 0 when the index has checked it, so that a process that
// has not loaded the index can check a read of the stream's start
// (SetFirstCheck); ok is false when there is none.
func (ix *Index) FirstCheck() (out int64, crc uint32, ok bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(ix.points) > 1 {
		if p := ix.points[1]; p.member == 0 && ix.inChecked(p.out) {
			return p.out, p.crc, true
		}
	}
	if ix.first.out > 0 {
		return ix.first.out, ix.first.crc, true
	}
	return 0, 0, false
}

// SetFirstCheck gives the index the first checkpoint of member 0 as
// FirstCheck returned it (kept beside the index by its user): reads of
// the output before out decode to it and check their CRC-32 against crc,
// rather than decoding to the end of the member.
func (ix *Index) SetFirstCheck(out int64, crc uint32) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if out > 0 {
		ix.first = point{out: out, mout: out, crc: crc}
	}
}

// setSize records the stream's total output size.
func (ix *Index) setSize(n int64) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.size >= 0 && ix.size != n {
		return driver.Corruptf("stream decoded to %d bytes, and to %d before", n, ix.size)
	}
	ix.size = n
	return nil
}

// Size returns the total output size, or -1 while unknown.
func (ix *Index) Size() int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.size
}

func (p point) String() string {
	return fmt.Sprintf("out %d at %d.%d (member %d+%d)", p.out, p.in, p.bit, p.member, p.mout)
}
