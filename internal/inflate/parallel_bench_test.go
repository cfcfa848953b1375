package inflate

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
)

// benchText is 64 MiB of text deflated at level 6, built once.
var benchText = sync.OnceValues(func() ([]byte, []byte) {
	data := corpus("text", 64<<20, 41)
	return data, deflate(6, data, 0)
})

// benchCopy copies s from 0 to its end through WriteTo, as `pipefs cat`
// does.
func benchCopy(b *testing.B, s *Stream, want int64) {
	rc, err := s.Stream(context.Background(), 0)
	if err != nil {
		b.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, rc); err != nil || n != want {
		b.Fatalf("copied %d bytes, %v", n, err)
	}
	rc.Close()
}

// benchCores are the two ways a stream decodes: without the helper
// decoder, and with it.
var benchCores = []struct {
	name  string
	minIn int64
}{{"1core", 1 << 62}, {"2cores", 0}}

// BenchmarkStreamCold copies a 64 MiB member from a fresh stream (no
// index), with the helper decoder (two cores) and without it (one), and
// reports how many of the helper's segments were used.
func BenchmarkStreamCold(b *testing.B) {
	data, comp := benchText()
	for _, tc := range benchCores {
		b.Run(tc.name, func(b *testing.B) {
			var joins atomic.Int64
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				s := member(b, comp, data, 0)
				s.spec = specKnobs{minIn: tc.minIn, joins: &joins}
				benchCopy(b, s, int64(len(data)))
				s.Close()
			}
			b.ReportMetric(float64(joins.Load())/float64(b.N), "joins/op")
		})
	}
}

// BenchmarkStreamIndexed is BenchmarkStreamCold with the index a first
// pass built: the helper starts at its checkpoints.
func BenchmarkStreamIndexed(b *testing.B) {
	data, comp := benchText()
	for _, tc := range benchCores {
		b.Run(tc.name, func(b *testing.B) {
			s := member(b, comp, data, 0)
			defer s.Close()
			benchCopy(b, s, int64(len(data)))
			var joins atomic.Int64
			s.spec = specKnobs{minIn: tc.minIn, joins: &joins}
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				benchCopy(b, s, int64(len(data)))
			}
			b.ReportMetric(float64(joins.Load())/float64(b.N), "joins/op")
		})
	}
}
