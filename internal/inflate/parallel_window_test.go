package inflate

import (
	"bytes"
	stdflate "compress/flate"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// TestSpeculativeShortWindow: a member whose data reaches before its own
// start (compressed with a preset dictionary, read without it) is corrupt.
// A helper that starts at a checkpoint less than 32 KiB into that member
// must say so as the sequential decoder does, not read zeros there.
func TestSpeculativeShortWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m1 := corpus("text", 2<<20-10<<10, 9)
	dict := make([]byte, 32<<10)
	for i := range dict {
		dict[i] = byte(r.Uint32())
	}
	var x []byte
	for range 20 << 10 {
		x = append(x, byte(r.Uint32()))
	}
	x = append(x, dict[25<<10:27<<10]...) // a match into the dictionary
	for range 40 << 10 {
		x = append(x, byte('a'+r.IntN(3)))
	}
	var b2 bytes.Buffer
	w, _ := stdflate.NewWriterDict(&b2, 6, dict)
	for i := 0; i < len(x); i += 4 << 10 {
		w.Write(x[i:min(i+4<<10, len(x))])
		w.Flush()
	}
	w.Close()
	c1 := deflate(6, m1, 0)
	comp := append(bytes.Clone(c1), b2.Bytes()...)
	// The CRC of what reading zeros for the dictionary would give, so that
	// only the decoders' own checks can catch it.
	zeroed := bytes.Clone(x)
	clear(zeroed[20<<10 : 22<<10])
	fr := &rawMembers{
		ends:  []int64{int64(len(c1)), int64(len(comp))},
		crcs:  []uint32{crc32.ChecksumIEEE(m1), crc32.ChecksumIEEE(zeroed)},
		sizes: []int64{int64(len(m1)), int64(len(x))},
	}
	s := New(driver.BytesBlob(comp, nil), 0, fr, "", &Options{Spacing: 2 << 20})
	st := func() *Stream { return s }
	seq, serr := streamAll(t, st, nil) // builds the index
	if !errors.Is(serr, driver.ErrCorrupt) {
		t.Fatalf("one core: %d bytes, %v; want corrupt data", len(seq), serr)
	}
	par, perr := streamAll(t, st, &specKnobs{segIn: 256 << 10, patient: true})
	if !errors.Is(perr, driver.ErrCorrupt) {
		t.Fatalf("two cores from the index: %d bytes, %v; want the one-core error, %v", len(par), perr, serr)
	}
}
