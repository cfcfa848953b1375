package zstdadapter

import (
	"encoding/binary"

	seekable "github.com/SaveTheRbtz/zstd-seekable-format-go/pkg"

	"github.com/pipefs/pipefs/vfs/driver"
)

// The magic number of the seekable format's footer.
const seekFooter = 0x8F92EAB1

// seekTable returns the frames a seek table lists, or nil when the file
// does not end in a seek table footer.
//
// The footer is read here, not by the seekable package, so that the table
// is bounded by Limits.MaxEntries and by the file's size before it is
// read: the package's own reader (seekable.NewReader) reads and allocates
// a table of whatever size the footer claims, up to 4 GiB, and learns the
// file's layout only by reading it. seekable.NewSeekTable then parses the
// table frame (its skippable frame header and size, the footer's reserved
// bits, the entry count), and the layout is checked here, which the
// package does not do: the frames must add up to the start of the table,
// and each must start with a frame magic.
func (o *opener) seekTable() ([]frame, error) {
	const footLen, headLen = 9, 8 // the footer; the skippable frame header
	if o.size < footLen+headLen {
		return nil, nil
	}
	var foot [footLen]byte
	if err := o.read(foot[:], o.size-footLen); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(foot[5:]) != seekFooter {
		return nil, nil
	}
	n := int64(binary.LittleEndian.Uint32(foot[:4]))
	esize := int64(8)
	if foot[4]&0x80 != 0 { // Checksum_Flag: entries carry a checksum
		esize = 12
	}
	if n > int64(o.lim.MaxEntries) {
		return nil, driver.Limitf("zstd seek table lists %d frames, more than Limits.MaxEntries (%d)", n, o.lim.MaxEntries)
	}
	start := o.size - headLen - n*esize - footLen
	if start < 0 {
		return nil, driver.Corruptf("zstd seek table of %d frames is larger than the file", n)
	}
	buf := make([]byte, o.size-start) // bounded by the file size above
	if err := o.read(buf, start); err != nil {
		return nil, err
	}
	table, err := seekable.NewSeekTable(buf)
	if err != nil {
		return nil, driver.Corruptf("zstd seek table at %d: %v", start, err)
	}
	frames := make([]frame, 0, n)
	var in int64
	for i := range table.NumFrames() {
		e, _ := table.EntryByID(i)
		c, d := int64(e.CompressedSize), int64(e.DecompressedSize)
		if c == 0 && d == 0 {
			continue
		}
		if c < 9 {
			return nil, driver.Corruptf("zstd seek table: entry %d has %d compressed bytes", i, c)
		}
		if c > start-in {
			return nil, driver.Corruptf("zstd seek table: frames go past the table, which starts at %d", start)
		}
		frames = append(frames, frame{in: in, end: in + c, size: d})
		in += c
	}
	if in != start {
		return nil, driver.Corruptf("zstd seek table: frames add up to %d bytes, the table starts at %d", in, start)
	}
	for _, f := range frames {
		m, err := o.u32(f.in)
		if err != nil {
			return nil, err
		}
		if m != frameMagic {
			return nil, driver.Corruptf("zstd seek table: no frame at %d", f.in)
		}
	}
	return frames, nil
}
