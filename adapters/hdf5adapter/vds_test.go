package hdf5adapter

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// vdsBlock lays a virtual layout block by hand: one mapping of rank 1,
// source "all" to a version 3 hyperslab of the given blocks (4-byte
// values), without its checksum.
func vdsBlock(sel []byte) []byte {
	b := []byte{0}
	b = binary.LittleEndian.AppendUint64(b, 1)
	b = append(b, ".\x00src\x00"...)
	b = binary.LittleEndian.AppendUint32(b, selAll)
	b = append(b, make([]byte, 12)...)
	return append(b, sel...)
}

func hyperV3(blocks ...[2]uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, selHyper)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = append(b, 0, 4)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(blocks)))
	for _, bl := range blocks {
		b = binary.LittleEndian.AppendUint32(b, bl[0])
		b = binary.LittleEndian.AppendUint32(b, bl[1])
	}
	return b
}

func withSum(b []byte) []byte { return binary.LittleEndian.AppendUint32(b, lookup3(b)) }

func vdsTestFile() *file { return &file{o: 8, l: 8, lim: vfs.Limits{}.Effective()} }

func TestParseVDS(t *testing.T) {
	f := vdsTestFile()
	maps, err := f.parseVDS(withSum(vdsBlock(hyperV3([2]uint32{6, 7}, [2]uint32{2, 3}))), 1)
	if err != nil || len(maps) != 1 || maps[0].file != "." || maps[0].dataset != "src" {
		t.Fatalf("parseVDS = %v, %v", maps, err)
	}
	vr, err := maps[0].virt.runs([]int64{10})
	if err != nil || len(vr) != 2 || vr[0] != (run{2, 2}) || vr[1] != (run{6, 2}) {
		t.Fatalf("virtual runs %v, %v", vr, err)
	}
	sr, _ := maps[0].src.runs([]int64{4})
	segs, err := zipRuns(vr, sr)
	if err != nil || len(segs) != 2 || segs[1] != (vdsSegment{6, 2, 2}) {
		t.Fatalf("zipRuns = %v, %v", segs, err)
	}
	if _, err := zipRuns(vr, []run{{0, 3}}); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("zipRuns of 4 and 3 elements: %v, want corrupt", err)
	}
	if _, err := maps[0].virt.runs([]int64{7}); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("block past the extent: %v, want corrupt", err)
	}

	bad := withSum(vdsBlock(hyperV3([2]uint32{0, 1})))
	bad[len(bad)-1] ^= 1
	if _, err := f.parseVDS(bad, 1); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("bad checksum: %v, want corrupt", err)
	}
	points := binary.LittleEndian.AppendUint32(nil, selPoints)
	if _, err := f.parseVDS(withSum(vdsBlock(append(points, make([]byte, 24)...))), 1); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("point selection: %v, want errors.ErrUnsupported", err)
	}
	unl := binary.LittleEndian.AppendUint32(nil, selHyper)
	unl = binary.LittleEndian.AppendUint32(unl, 2)
	unl = append(unl, 1, 0, 0, 0, 0)
	unl = binary.LittleEndian.AppendUint32(unl, 1)
	for _, v := range []uint64{0, 1, ^uint64(0), 4} {
		unl = binary.LittleEndian.AppendUint64(unl, v)
	}
	if _, err := f.parseVDS(withSum(vdsBlock(unl)), 1); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("unlimited selection: %v, want errors.ErrUnsupported", err)
	}
}

// FuzzParseVDS: parsing a virtual layout block and expanding its
// selections never panics, and fails with corrupt, limit or unsupported.
func FuzzParseVDS(f *testing.F) {
	f.Add(vdsBlock(hyperV3([2]uint32{6, 7}, [2]uint32{2, 3})), uint8(10), uint8(4))
	f.Add(vdsBlock(hyperV3([2]uint32{0, 3})), uint8(4), uint8(4))
	f.Fuzz(func(t *testing.T, body []byte, vdim, sdim uint8) {
		maps, err := vdsTestFile().parseVDS(withSum(body), 1)
		check := func(err error) {
			if err != nil && !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) && !errors.Is(err, errors.ErrUnsupported) {
				t.Fatalf("error %v", err)
			}
		}
		check(err)
		for _, m := range maps {
			vr, err := m.virt.runs([]int64{int64(vdim)})
			check(err)
			sr, err := m.src.runs([]int64{int64(sdim)})
			check(err)
			if vr != nil && sr != nil {
				_, err = zipRuns(vr, sr)
				check(err)
			}
		}
	})
}
