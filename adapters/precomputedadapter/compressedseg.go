package precomputedadapter

import (
	"encoding/binary"

	"github.com/pipefs/pipefs/vfs/driver"
)

// decodeCompressedSegmentation decodes a chunk in the multi-channel
// compressed_segmentation format of neuroglancer: channels little-endian
// uint32 offsets (in 32-bit words from the start) of the channels' data,
// then each channel, a grid of blocks of shape block ([x, y, z]) covering
// vol ([x, y, z]), each block a 64-bit header (24-bit lookup table offset,
// 8-bit encoded bits, 32-bit encoded values offset, in words from the
// start of the channel) whose values index its lookup table of es-byte
// (4 or 8) little-endian values. It returns the voxels as C-order
// [channel, z, y, x] little-endian es-byte elements. Every offset and
// index is checked against the data: malformed input gives an error
// matching driver.ErrCorrupt. The caller bounds vol and block (their
// products fit in int64).
func decodeCompressedSegmentation(data []byte, channels int, vol, block [3]int64, es int) ([]byte, error) {
	if len(data)%4 != 0 {
		return nil, driver.Corruptf("compressed_segmentation: %d bytes, not a multiple of 4", len(data))
	}
	nw := int64(len(data) / 4)
	if nw < int64(channels) {
		return nil, driver.Corruptf("compressed_segmentation: %d bytes, too short for %d channel offsets", len(data), channels)
	}
	voxels := vol[0] * vol[1] * vol[2]
	out := make([]byte, int64(channels)*voxels*int64(es))
	for c := 0; c < channels; c++ {
		off := int64(binary.LittleEndian.Uint32(data[4*c:]))
		if off > nw {
			return nil, driver.Corruptf("compressed_segmentation: channel %d at word %d, past the %d words", c, off, nw)
		}
		if err := decodeSegChannel(data[4*off:], vol, block, es, out[int64(c)*voxels*int64(es):][:voxels*int64(es)]); err != nil {
			return nil, driver.Corruptf("compressed_segmentation: channel %d: %v", c, err)
		}
	}
	return out, nil
}

// segError is a malformed channel.
type segError string

func (e segError) Error() string { return string(e) }

// decodeSegChannel decodes one channel (d, whose offsets are relative to
// its start) into out, C-order [z, y, x].
func decodeSegChannel(d []byte, vol, block [3]int64, es int, out []byte) error {
	nw := int64(len(d) / 4)
	word := func(i int64) uint32 { return binary.LittleEndian.Uint32(d[4*i:]) }
	var grid [3]int64
	for i := range grid {
		grid[i] = (vol[i] + block[i] - 1) / block[i]
	}
	nblocks := grid[0] * grid[1] * grid[2]
	if 2*nblocks > nw {
		return segError("too short for its block headers")
	}
	bx, by := block[0], block[1]
	for gz := int64(0); gz < grid[2]; gz++ {
		for gy := int64(0); gy < grid[1]; gy++ {
			for gx := int64(0); gx < grid[0]; gx++ {
				h := 2 * (gx + grid[0]*(gy+grid[1]*gz))
				w0, w1 := word(h), word(h+1)
				lut, nbits, vals := int64(w0&0xffffff), uint(w0>>24), int64(w1)
				switch nbits {
				case 0, 1, 2, 4, 8, 16, 32:
				default:
					return segError("encoded bits not 0, 1, 2, 4, 8, 16 or 32")
				}
				if lut > nw {
					return segError("lookup table past the end")
				}
				tableLen := (nw - lut) * 4 / int64(es)
				// The part of the block inside the volume.
				x0, y0, z0 := gx*block[0], gy*block[1], gz*block[2]
				ex, ey, ez := min(block[0], vol[0]-x0), min(block[1], vol[1]-y0), min(block[2], vol[2]-z0)
				last := (ex - 1) + bx*((ey-1)+by*(ez-1)) // the largest index read
				need := (int64(nbits)*(last+1) + 31) / 32
				if vals > nw || need > nw-vals {
					return segError("encoded values past the end")
				}
				for z := int64(0); z < ez; z++ {
					for y := int64(0); y < ey; y++ {
						for x := int64(0); x < ex; x++ {
							var idx int64
							if nbits > 0 {
								bit := int64(nbits) * (x + bx*(y+by*z))
								idx = int64(word(vals+bit/32)>>(bit%32)) & (1<<nbits - 1)
							}
							if idx >= tableLen {
								return segError("lookup table index past the end")
							}
							src := d[4*lut+idx*int64(es):][:es]
							o := ((z0+z)*vol[1]+(y0+y))*vol[0] + x0 + x
							copy(out[o*int64(es):], src)
						}
					}
				}
			}
		}
	}
	return nil
}
