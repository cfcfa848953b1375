package precomputedadapter

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// FuzzShardIndex decodes shard indexes and looks up every minishard:
// no panic, and every range either lies inside the shard or is refused.
func FuzzShardIndex(f *testing.F) {
	f.Add([]byte{}, uint8(0), int64(16))
	f.Add(make([]byte, 32), uint8(1), int64(100))
	f.Add(append(binary.LittleEndian.AppendUint64(nil, 3), binary.LittleEndian.AppendUint64(nil, 9)...), uint8(0), int64(40))
	f.Fuzz(func(t *testing.T, b []byte, bits uint8, size int64) {
		m := int64(1) << (bits % 8)
		idx, err := decodeShardIndex(b, m)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		size = max(size, 16*m)
		for i := range uint64(m) {
			off, n, err := idx.minishard(i, 16*m, size)
			if err == nil && (off < 16*m || n < 0 || off+n > size) {
				t.Fatalf("minishard %d at [%d, +%d) outside the shard of %d", i, off, n, size)
			}
		}
	})
}

// FuzzMinishardIndex decodes minishard indexes: no panic, sorted entries
// inside the shard.
func FuzzMinishardIndex(f *testing.F) {
	f.Add([]byte{}, int64(100))
	f.Add(encodeMinishard([]minishardEntry{{ID: 1, Off: 35, Len: 7}, {ID: 7, Off: 44, Len: 3}}, 32), int64(100))
	f.Add([]byte("abc"), int64(10))
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		size = max(size, 32)
		es, err := decodeMinishardIndex(b, 32, size)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		for i, e := range es {
			if e.Off < 32 || e.Len < 0 || e.Off+e.Len > size || i > 0 && es[i-1].ID > e.ID {
				t.Fatalf("entry %d %+v of a shard of %d", i, e, size)
			}
			if got, ok := find(es, e.ID); !ok || got.ID != e.ID {
				t.Fatalf("find(%d) = %+v, %v", e.ID, got, ok)
			}
		}
	})
}

// FuzzCompressedSegmentation decodes compressed_segmentation chunks of
// small shapes: no panic, the output of the shape asked for.
func FuzzCompressedSegmentation(f *testing.F) {
	basic := words(1, 5|2<<24, 4, 12|1<<24, 11, 0b01100001, 3, 0, 4, 0, 5, 0, 0b1110, 1, 0, 3, 0)
	f.Add(basic, uint8(1), uint16(0x0222), uint16(0x0122), true)
	f.Add(words(1, 4|32<<24, 2, 0, 1, 10, 20), uint8(1), uint16(0x0112), uint16(0x0112), false)
	f.Add(words(2, 9, 3|1<<24, 2, 0b1, 7, 3|0<<24, 2, 5), uint8(2), uint16(0x0111), uint16(0x0111), false)
	f.Fuzz(func(t *testing.T, b []byte, channels uint8, vol, block uint16, big bool) {
		ch := int(channels%4) + 1
		v := [3]int64{int64(vol&15) + 1, int64(vol>>4&15) + 1, int64(vol>>8&15) + 1}
		bl := [3]int64{int64(block&15) + 1, int64(block>>4&15) + 1, int64(block>>8&15) + 1}
		es := 4
		if big {
			es = 8
		}
		out, err := decodeCompressedSegmentation(b, ch, v, bl, es)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		if int64(len(out)) != int64(ch)*v[0]*v[1]*v[2]*int64(es) {
			t.Fatalf("%d bytes for %d channels of %v", len(out), ch, v)
		}
	})
}

// FuzzImageChunk decodes jpeg and png chunks: no panic, and an image
// whose size does not match the chunk is refused before it is decoded.
func FuzzImageChunk(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"), false, uint8(1), uint16(16))
	f.Add([]byte("\xff\xd8\xff"), true, uint8(3), uint16(64))
	f.Fuzz(func(t *testing.T, b []byte, isJPEG bool, channels uint8, voxels uint16) {
		format, es := "png", 1
		if isJPEG {
			format = "jpeg"
		} else if channels&0x80 != 0 {
			es = 2
		}
		ch := int(channels%4) + 1
		out, err := decodeImageChunk(b, format, int64(voxels), ch, es)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		if len(out) != int(voxels)*ch*es {
			t.Fatalf("%d bytes for %d voxels of %d channels", len(out), voxels, ch)
		}
	})
}
