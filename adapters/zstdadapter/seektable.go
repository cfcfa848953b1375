package zstdadapter

import (
	"encoding/binary"

	"github.com/pipefs/pipefs/vfs/driver"
)

// The magic numbers of the seekable format: the seek table's skippable
// frame, and its footer.
const (
	seekTableMagic = 0x184D2A5E
	seekFooter     = 0x8F92EAB1
)

// seekTable returns the frames of a seek table, or nil when the file does
// not end in one.
func (o *opener) seekTable() ([]frame, error) {
	if o.size < 17 {
		return nil, nil
	}
	var foot [9]byte
	if err := o.read(foot[:], o.size-9); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(foot[5:]) != seekFooter {
		return nil, nil
	}
	n := int64(binary.LittleEndian.Uint32(foot[:4]))
	desc := foot[4]
	if desc&0x7c != 0 {
		return nil, driver.Corruptf("zstd seek table: reserved descriptor bits %#02x", desc&0x7c)
	}
	esize := int64(8)
	if desc&0x80 != 0 {
		esize = 12
	}
	if n > int64(o.lim.MaxEntries) {
		return nil, driver.Limitf("zstd seek table lists %d frames, more than Limits.MaxEntries (%d)", n, o.lim.MaxEntries)
	}
	tsize := n*esize + 9
	start := o.size - tsize - 8
	if start < 0 {
		return nil, driver.Corruptf("zstd seek table of %d frames is larger than the file", n)
	}
	if m, err := o.u32(start); err != nil || m != seekTableMagic {
		return nil, driver.Corruptf("zstd seek table: no skippable frame header at %d", start)
	}
	if fs, err := o.u32(start + 4); err != nil || int64(fs) != tsize {
		return nil, driver.Corruptf("zstd seek table: frame size does not match %d entries", n)
	}
	tab := make([]byte, n*esize) // bounded by the file size above
	if err := o.read(tab, start+8); err != nil {
		return nil, err
	}
	frames := make([]frame, 0, n)
	var in, out int64
	for i := range n {
		e := tab[i*esize:]
		c, d := int64(binary.LittleEndian.Uint32(e)), int64(binary.LittleEndian.Uint32(e[4:]))
		if c == 0 && d == 0 {
			continue
		}
		if c < 9 {
			return nil, driver.Corruptf("zstd seek table: entry %d has %d compressed bytes", i, c)
		}
		frames = append(frames, frame{in: in, end: in + c, out: out, size: d})
		in += c
		out += d
	}
	if in != start {
		return nil, driver.Corruptf("zstd seek table: frames add up to %d bytes, the table starts at %d", in, start)
	}
	for _, f := range frames {
		if m, err := o.u32(f.in); err != nil || m != frameMagic {
			return nil, driver.Corruptf("zstd seek table: no frame at %d", f.in)
		}
	}
	return frames, nil
}
