package array

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRuns checks how runs groups chunks: every chunk once, in the order
// of its object and offset; a run within one object, without a gap of
// more than maxGap; the runs of a segment of S bytes less a chunk to 2S
// and a chunk, and a segment of less than S in one run.
func TestRuns(t *testing.T) {
	a := &Array{ChunkShape: []int64{64, 64}, DType: DType{Size: 4}}
	rng := rand.New(rand.NewPCG(1, 2))
	var chunks []*boxChunk
	var stored int64
	for obj := range 3 {
		off := int64(0)
		for range 200 + 100*obj {
			n := 4000 + rng.Int64N(12000)
			if rng.IntN(50) == 0 {
				off += maxGap + 1 + rng.Int64N(1000) // a gap that splits the object
			} else {
				off += rng.Int64N(3000) // one small enough to read through
			}
			chunks = append(chunks, &boxChunk{ext: Extent{Object: fmt.Sprint("shard", obj), Off: off, Len: n}})
			off += n
			stored += n
		}
	}
	rng.Shuffle(len(chunks), func(i, j int) { chunks[i], chunks[j] = chunks[j], chunks[i] })
	for _, n := range []int{1, 8, 64} {
		s := max(min(max(stored/int64(n), minRun), (DefaultInFlight/int64(n)-2*a.ChunkBytes())/2), 1)
		runs := a.runs(chunks, n)
		var seen int
		var prev Extent
		for i, run := range runs {
			lo, hi := run[0].ext.Off, run[0].ext.Off
			for j, c := range run {
				e := c.ext
				if seen > 0 && (e.Object < prev.Object || e.Object == prev.Object && e.Off < prev.Off) {
					t.Fatalf("n=%d: run %d: chunk %v after %v", n, i, e, prev)
				}
				if j > 0 && (e.Object != run[0].ext.Object || e.Off > hi+maxGap) {
					t.Fatalf("n=%d: run %d: chunk %v does not continue [%d, %d) of %s", n, i, e, lo, hi, run[0].ext.Object)
				}
				hi = max(hi, e.Off+e.Len)
				prev = e
				seen++
			}
			// A run may be short only as the one run of its segment: its
			// neighbours are then in other objects or past a gap.
			alone := (i == 0 || runs[i-1][len(runs[i-1])-1].ext.Object != run[0].ext.Object ||
				run[0].ext.Off > runs[i-1][len(runs[i-1])-1].ext.Off+runs[i-1][len(runs[i-1])-1].ext.Len+maxGap) &&
				(i == len(runs)-1 || runs[i+1][0].ext.Object != run[0].ext.Object || runs[i+1][0].ext.Off > hi+maxGap)
			if hi-lo < s-16000 && !alone {
				t.Errorf("n=%d: run %d of %d bytes, less than S (%d) less a chunk, beside others of its segment", n, i, hi-lo, s)
			}
			if hi-lo > 2*s+16000 {
				t.Errorf("n=%d: run %d of %d bytes, more than 2S (%d) and a chunk", n, i, hi-lo, 2*s)
			}
		}
		if seen != len(chunks) {
			t.Errorf("n=%d: runs hold %d chunks of %d", n, seen, len(chunks))
		}
	}
}
