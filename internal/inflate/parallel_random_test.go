package inflate

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestSpeculativeRandom compares the two-core output with the data on
// random streams: kind, size, level, flushes, segment size, checkpoint
// spacing and patience drawn from a fixed seed, each read twice (cold,
// then from the index the first read built).
func TestSpeculativeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	kinds := []string{"text", "random", "mixed"}
	for i := 0; i < 60; i++ {
		kind := kinds[r.IntN(3)]
		n := 200<<10 + r.IntN(3<<20)
		data := corpus(kind, n, uint64(i))
		level := r.IntN(10)
		flush := 0
		if r.IntN(3) == 0 {
			flush = 1000 + r.IntN(100000)
		}
		comp := deflate(level, data, flush)
		seg := int64(16<<10 + r.IntN(256<<10))
		patient := r.IntN(2) == 0
		mk := func() *Stream { return member(t, comp, data, int64(64<<10+r.IntN(1<<20))) }
		s := mk()
		got, err := streamAll(t, func() *Stream { return s }, &specKnobs{segIn: seg, patient: patient})
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("case %d %s n=%d level %d flush %d seg %d patient %v: %d bytes, %v", i, kind, n, level, flush, seg, patient, len(got), err)
		}
		got, err = streamAll(t, func() *Stream { return s }, &specKnobs{segIn: seg, patient: !patient})
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("second pass case %d %s n=%d level %d flush %d seg %d: %d bytes, %v", i, kind, n, level, flush, seg, len(got), err)
		}
	}
}

// TestSpeculativeRandomCorrupt damages random streams (bit flips past the
// first quarter, truncation) and checks that the two-core read fails
// where the sequential one does, their outputs one a prefix of the other.
func TestSpeculativeRandomCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 9))
	kinds := []string{"text", "random", "mixed"}
	for i := 0; i < 40; i++ {
		kind := kinds[r.IntN(3)]
		n := 500<<10 + r.IntN(2<<20)
		data := corpus(kind, n, uint64(i))
		comp := bytes.Clone(deflate(1+r.IntN(9), data, 0))
		for k := 0; k < 1+r.IntN(3); k++ {
			at := len(comp)/4 + r.IntN(len(comp)*3/4)
			comp[at] ^= byte(1 << r.IntN(8))
		}
		if r.IntN(4) == 0 {
			comp = comp[:len(comp)/2+r.IntN(len(comp)/2)]
		}
		seg := int64(16<<10 + r.IntN(256<<10))
		mk := func() *Stream { return member(t, comp, data, 256<<10) }
		seq, serr := streamAll(t, mk, nil)
		par, perr := streamAll(t, mk, &specKnobs{segIn: seg, patient: r.IntN(2) == 0})
		if (serr == nil) != (perr == nil) {
			t.Fatalf("case %d: sequential %v, two cores %v", i, serr, perr)
		}
		short, long := seq, par
		if len(short) > len(long) {
			short, long = long, short
		}
		if !bytes.Equal(short, long[:len(short)]) {
			t.Fatalf("case %d: outputs differ before the error (%d and %d bytes)", i, len(seq), len(par))
		}
		if serr == nil && !bytes.Equal(seq, par) {
			t.Fatalf("case %d: outputs differ", i)
		}
	}
}
