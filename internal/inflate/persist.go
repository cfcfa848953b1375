package inflate

import (
	"github.com/pipefs/pipefs/internal/indexenc"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// An index is kept on disk (vfs.DiskIndex) by the driver that owns the
// stream, once complete: once a pass reached the end of the stream, every
// checkpoint up to it is known, and so is the size. Encode gives the
// bytes, and Index.Load puts them into the index of a stream opened
// later, which its cache shares with the streams opened after it.
//
// The encoding, version 1, is a sequence of indexenc values: the size,
// the last member seen, the count of points, then each point's out, in,
// bit, member, memberIn, mout, crc and window. Load checks that the
// points are in order and consistent, that every offset is within the
// input, and every window at most 32 KiB: bad bytes are an error matching
// driver.ErrCorrupt, never a panic. What it cannot check is that a window
// holds the bytes the stream had there; a damaged file is caught by the
// store's checksum, and a member's CRC-32 is still checked when a read
// reaches its end.

// maxWindow is the DEFLATE window.
const maxWindow = 32 << 10

// Complete reports whether the index covers the whole stream.
func (ix *Index) Complete() bool { return ix.Size() >= 0 }

// Checked reports whether the index covers the whole stream and every
// member of it passed its trailer check: only such an index is worth
// keeping, and a kept complete index is loaded as checked (see Load).
func (ix *Index) Checked() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.size >= 0 && len(ix.checked) == 1 && ix.checked[0].start == 0 && ix.checked[0].end >= ix.size
}

// Encode returns the encoded index, complete or not: an index that is
// not complete serves the offsets up to its last checkpoint, and grows
// from there.
func (ix *Index) Encode() []byte {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var e indexenc.Encoder
	e.Int(ix.size)
	e.Int(int64(ix.lastMember))
	e.Uint(uint64(len(ix.points)))
	for _, p := range ix.points {
		e.Int(p.out)
		e.Int(p.in)
		e.Uint(uint64(p.bit))
		e.Int(int64(p.member))
		e.Int(p.memberIn)
		e.Int(p.mout)
		e.Uint(uint64(p.crc))
		e.Raw(p.window)
	}
	return e.Bytes()
}

// EncodedLimit is the most bytes the encoding of an index of a stream
// under lim, with checkpoints spacing bytes apart, can take; a caller
// loading one refuses more.
func EncodedLimit(lim vfs.Limits, spacing int64) int64 {
	const perPoint = maxWindow + 64
	n := lim.MaxFileSize/max(spacing, 1) + 2
	if n > (1<<62)/perPoint {
		return 1 << 62
	}
	return n * perPoint
}

// Load decodes b, as Encode gave it, into ix, the index of a stream whose
// data starts at first and whose input is srcSize bytes: what a stream
// opened before its kept index was read then uses. ix takes the kept
// checkpoints unless it is complete or reaches as far itself; a decoder
// that learns points meanwhile adds those past the kept ones. size, when
// not negative, is the size the stream is said to have elsewhere (a
// header kept beside the index): a complete kept index of another size is
// corrupt. Load reports whether ix took the kept index.
func (ix *Index) Load(b []byte, first, srcSize, size int64) (bool, error) {
	kept, err := decodeIndex(ix.c, ix.key, b, first, srcSize)
	if err != nil {
		return false, err
	}
	if size >= 0 && kept.size >= 0 && kept.size != size {
		return false, driver.Corruptf("the kept index says the stream decodes to %d bytes, and the header kept beside it %d", kept.size, size)
	}
	ix.mu.Lock()
	last := ix.points[len(ix.points)-1]
	far := kept.points[len(kept.points)-1]
	if ix.size >= 0 || kept.size < 0 && far.out <= last.out {
		ix.mu.Unlock()
		return false, nil
	}
	n := kept.bytes - ix.bytes
	ix.points, ix.lastMember, ix.size, ix.bytes = kept.points, max(kept.lastMember, ix.lastMember), kept.size, kept.bytes
	if kept.size >= 0 {
		// Only a checked index is kept complete (Checked): its
		// checkpoints' CRCs are those of verified output.
		ix.checked = []span{{0, kept.size}}
	}
	ix.mu.Unlock()
	if n > 0 {
		ix.grew(n)
	}
	return true, nil
}

// Learned reports whether c holds an index under key that has learned
// anything: a checkpoint past the stream's start, or its size.
func Learned(c *vfs.Cache, key string) bool {
	v, ok := c.Peek(indexKey(key))
	if !ok {
		return false
	}
	ix := v.(*Index)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.points) > 1 || ix.size >= 0
}

// decodeIndex decodes b, as Encode gave it, into an index of c under key,
// checking every point as untrusted input.
func decodeIndex(c *vfs.Cache, key string, b []byte, first, srcSize int64) (*Index, error) {
	d := indexenc.NewDecoder(b)
	size := d.NonNeg(-1)
	last := d.NonNeg(0)
	n := d.Count(1 << 40)
	ix := &Index{c: c, key: key, size: size, lastMember: int(last), points: make([]point, 0, n)}
	var prev point
	for i := range n {
		p := point{
			out:      d.NonNeg(0),
			in:       d.NonNeg(0),
			bit:      uint8(min(d.Uint(), 8)),
			member:   int(d.NonNeg(0)),
			memberIn: d.NonNeg(0),
			mout:     d.NonNeg(0),
		}
		crc := d.Uint()
		p.window = d.Raw(maxWindow)
		p.crc = uint32(crc)
		if len(p.window) == 0 {
			p.window = nil
		}
		switch {
		case d.Err() != nil:
		case crc > 1<<32-1 || p.bit > 7:
			d.Fail("point %d: bad CRC or bit", i)
		case i == 0 && (p.out != 0 || p.in != first || p.memberIn != first || p.member != 0 || p.mout != 0 || p.window != nil):
			d.Fail("first point is not the stream's start")
		case i > 0 && (p.out <= prev.out || p.in < prev.in || p.member < prev.member):
			d.Fail("point %d out of order", i)
		case p.in > srcSize || p.memberIn > p.in || p.mout > p.out || size >= 0 && p.out > size || int64(p.member) > last:
			d.Fail("point %d out of range", i)
		case int64(len(p.window)) > p.mout:
			d.Fail("point %d: window longer than the member's output", i)
		}
		if d.Err() != nil {
			break
		}
		ix.points = append(ix.points, p)
		ix.bytes += int64(len(p.window))
		prev = p
	}
	if len(ix.points) == 0 {
		d.Fail("no checkpoint")
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	return ix, nil
}
