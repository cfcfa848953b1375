package zstdadapter

import (
	"context"

	"github.com/pipefs/pipefs/internal/indexenc"
	"github.com/pipefs/pipefs/vfs"
)

// The frame table is kept on disk (vfs.DiskIndex) after the walk of the
// frame headers at open, and again once a pass has learnt the sizes of the
// frames that declare none, so that a later process opens the file
// without walking its blocks (one small read per block) and, once the
// sizes are known, without decoding anything to learn them.
//
// The encoding, version 1, is a sequence of indexenc values: whether the
// table came from a seek table, the count of frames, then each frame's
// start, end and size (-1 when not known). Decoding checks that the frames
// are in order, do not overlap and lie within the file, and counts them
// against Limits.MaxEntries; sizes are checked by layout as a walk's are.

// diskKind names the frame table on disk.
const diskKind = "zstd v1"

func encodeFrames(frames []frame, seekable bool) []byte {
	var e indexenc.Encoder
	e.Bool(seekable)
	e.Uint(uint64(len(frames)))
	for _, f := range frames {
		e.Int(f.in)
		e.Int(f.end)
		e.Int(f.size)
	}
	return e.Bytes()
}

// decodeFrames decodes what encodeFrames wrote for a file of size bytes.
func decodeFrames(b []byte, size int64, lim vfs.Limits) ([]frame, bool, error) {
	d := indexenc.NewDecoder(b)
	seekable := d.Bool()
	n := d.Count(lim.MaxEntries)
	if n == 0 {
		d.Fail("no frame")
	}
	frames := make([]frame, 0, n)
	var prev int64
	for i := range n {
		f := frame{in: d.NonNeg(prev), end: d.NonNeg(0), size: d.NonNeg(-1)}
		if f.end < f.in+4 || f.end > size {
			d.Fail("frame %d [%d, %d) out of order or past the file's end %d", i, f.in, f.end, size)
		}
		if d.Err() != nil {
			break
		}
		frames = append(frames, f)
		prev = f.end
	}
	if err := d.Done(); err != nil {
		return nil, false, err
	}
	return frames, seekable, nil
}

// storeFrames keeps the frame table on disk, a sidecar within ctx; b.sizeMu
// is held or b is not shared yet.
func (b *blob) storeFrames(ctx context.Context) {
	if b.disk.Enabled() {
		b.disk.Store(ctx, encodeFrames(b.frames, b.seekable))
	}
}
