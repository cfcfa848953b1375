package inflate

import (
	"bufio"
	"bytes"
	stdflate "compress/flate"
	"context"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/flate"
)

// streamAll reads s from 0 to its end through WriteTo, without the
// speculative decoder when k is nil, or with it on any size, tuned by k.
func streamAll(t *testing.T, s func() *Stream, k *specKnobs) ([]byte, error) {
	t.Helper()
	st := s()
	if k == nil {
		st.spec = specKnobs{minIn: 1 << 62}
	} else {
		st.spec = *k
		st.spec.minIn = -1
		if st.spec.segIn == 0 {
			st.spec.segIn = 64 << 10
		}
	}
	defer st.Close()
	rc, err := st.Stream(context.Background(), 0)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, rc)
	return buf.Bytes(), err
}

// rawMembers frames concatenated raw DEFLATE streams.
type rawMembers struct {
	ends  []int64
	crcs  []uint32
	sizes []int64
}

func (m *rawMembers) Next(_ context.Context, _ *bufio.Reader, i int, end int64, crc uint32, size int64) (int64, bool, error) {
	if i >= len(m.ends) || end != m.ends[i] || crc != m.crcs[i] || size != m.sizes[i] {
		return 0, false, driver.Corruptf("member %d does not match", i)
	}
	return end, i+1 < len(m.ends), nil
}

func deflate(level int, data []byte, flushEvery int) []byte {
	var buf bytes.Buffer
	w, _ := stdflate.NewWriter(&buf, level)
	for len(data) > 0 {
		k := len(data)
		if flushEvery > 0 {
			k = min(k, flushEvery)
		}
		w.Write(data[:k])
		if flushEvery > 0 {
			w.Flush()
		}
		data = data[k:]
	}
	w.Close()
	return buf.Bytes()
}

// farRepeats is data whose matches reach back the whole 32 KiB window.
func farRepeats(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range 32 << 10 {
		b[i] = byte(r.Uint32())
	}
	for i := 32 << 10; i < n; i++ {
		b[i] = b[i-32<<10]
		if r.IntN(500) == 0 {
			b[i] = byte(r.Uint32())
		}
	}
	return b
}

// runs is data whose matches reach back one byte.
func runs(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, 0, n)
	for len(b) < n {
		b = append(b, bytes.Repeat([]byte{byte(r.Uint32())}, min(n-len(b), 1+r.IntN(3000)))...)
	}
	return b
}

type specCase struct {
	name string
	data []byte
	comp []byte
}

func specCases() []specCase {
	const n = 3 << 20
	text, random, mixed := corpus("text", n, 21), corpus("random", n, 22), corpus("mixed", n, 23)
	kp := func(level int, data []byte) []byte {
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, level)
		w.Write(data)
		w.Close()
		return buf.Bytes()
	}
	var cs []specCase
	add := func(name string, data, comp []byte) { cs = append(cs, specCase{name, data, comp}) }
	add("random-stored", random, deflate(0, random, 0))
	add("random-6", random, deflate(6, random, 0))
	for _, l := range []int{1, 6, 9} {
		add("text-"+string(rune('0'+l)), text, deflate(l, text, 0))
	}
	add("text-klauspost-1", text, kp(1, text))
	add("text-klauspost-huffman-only", text, kp(flate.HuffmanOnly, text))
	add("mixed-klauspost-6", mixed, kp(6, mixed))
	add("text-flush-70001", text, deflate(1, text, 70001))
	add("mixed-flush-333", mixed, deflate(6, mixed, 333))
	add("text-fixed-huffman", text[:n/3], deflate(6, text[:n/3], 40)) // small flushed blocks are fixed-Huffman
	add("far-window", farRepeats(n, 24), deflate(9, farRepeats(n, 24), 0))
	add("runs", runs(n, 25), deflate(6, runs(n, 25), 0))
	add("tiny", text[:5000], deflate(6, text[:5000], 0))
	add("empty", nil, deflate(6, nil, 0))
	return cs
}

// TestSpeculativeMatchesSequential reads streams from the start with and
// without the speculative decoder and compares them byte for byte.
func TestSpeculativeMatchesSequential(t *testing.T) {
	var joins atomic.Int64
	for _, tc := range specCases() {
		t.Run(tc.name, func(t *testing.T) {
			mk := func() *Stream { return member(t, tc.comp, tc.data, 256<<10) }
			seq, serr := streamAll(t, mk, nil)
			par, perr := streamAll(t, mk, &specKnobs{joins: &joins})
			if serr != nil || perr != nil || !bytes.Equal(seq, tc.data) || !bytes.Equal(par, tc.data) {
				t.Fatalf("sequential %d bytes, %v; speculative %d bytes, %v; want %d bytes", len(seq), serr, len(par), perr, len(tc.data))
			}
			// Again with A waiting for B, so that they join.
			j := joins.Load()
			par, perr = streamAll(t, mk, &specKnobs{patient: true, joins: &joins})
			if perr != nil || !bytes.Equal(par, tc.data) {
				t.Fatalf("speculative, joined %d: %d bytes, %v; want %d bytes", joins.Load()-j, len(par), perr, len(tc.data))
			}
			t.Logf("%d compressed bytes, joined %d", len(tc.comp), joins.Load()-j)
			// The index the speculative pass built serves random reads.
			s := mk()
			defer s.Close()
			if _, err := streamAll(t, func() *Stream { return s }, &specKnobs{joins: &joins}); err != nil {
				t.Fatal(err)
			}
			// A second pass decodes from the index the first one built.
			var fromIndex atomic.Int64
			got, err := streamAll(t, func() *Stream { return s }, &specKnobs{joins: &fromIndex, segIn: 256 << 10, patient: true})
			if err != nil || !bytes.Equal(got, tc.data) {
				t.Fatalf("second pass, from the index: %d bytes, %v; want %d bytes", len(got), err, len(tc.data))
			}
			// B starts at the index's checkpoints: it needs no search and
			// no markers, so A joins B's segments on every stream of a
			// few of them.
			if pts, _ := s.Index().Stats(); len(tc.comp) >= 1<<20 && pts >= 8 && fromIndex.Load() == 0 {
				t.Errorf("second pass, from an index of %d points: no segment of B joined", pts)
			}
			t.Logf("second pass: joined %d", fromIndex.Load())
			for _, off := range []int64{0, int64(len(tc.data)) / 2, int64(len(tc.data)) * 3 / 4, int64(len(tc.data)) - 1} {
				if off < 0 {
					continue
				}
				p := make([]byte, min(100000, int64(len(tc.data))-off))
				if _, err := s.ReadAt(context.Background(), p, off); err != nil && err != io.EOF || !bytes.Equal(p, tc.data[off:off+int64(len(p))]) {
					t.Fatalf("ReadAt(%d) after the speculative pass: %v", off, err)
				}
			}
		})
	}
	if joins.Load() == 0 {
		t.Errorf("no speculative decoder was ever joined")
	}
}

// TestSpeculativeMembers runs the speculative decoder on concatenated
// members, as in a multi-member gzip file.
func TestSpeculativeMembers(t *testing.T) {
	var comp, data []byte
	fr := &rawMembers{}
	for i, d := range [][]byte{corpus("text", 900<<10, 31), corpus("mixed", 1500<<10, 32), corpus("random", 700<<10, 33), corpus("text", 1<<20, 34)} {
		comp = append(comp, deflate(1+i*2, d, 0)...)
		data = append(data, d...)
		fr.ends = append(fr.ends, int64(len(comp)))
		fr.crcs = append(fr.crcs, crc32.ChecksumIEEE(d))
		fr.sizes = append(fr.sizes, int64(len(d)))
	}
	mk := func() *Stream { return New(driver.BytesBlob(comp, nil), 0, fr, "", &Options{Spacing: 256 << 10}) }
	seq, serr := streamAll(t, mk, nil)
	for _, patient := range []bool{false, true} {
		par, perr := streamAll(t, mk, &specKnobs{patient: patient})
		if serr != nil || perr != nil || !bytes.Equal(seq, data) || !bytes.Equal(par, data) {
			t.Fatalf("sequential %d bytes, %v; speculative %d bytes, %v; want %d bytes", len(seq), serr, len(par), perr, len(data))
		}
	}
}

// TestSpeculativeCorrupt damages streams after the speculative decoder's
// start and checks that both paths fail, the one's output a prefix of
// the other's.
func TestSpeculativeCorrupt(t *testing.T) {
	for _, tc := range specCases() {
		if len(tc.comp) < 100000 {
			continue
		}
		n := len(tc.comp)
		damages := map[string][]byte{
			"truncated-0.75": tc.comp[:n*3/4],
			"truncated-0.52": tc.comp[:n*52/100],
		}
		for _, at := range []int{n / 2, n/2 + 5000, n * 3 / 4, n - 50} {
			b := bytes.Clone(tc.comp)
			b[at] ^= 0x10
			damages["flip-"+string(rune('a'+at%26))+"-"+itoa(at)] = b
			z := bytes.Clone(tc.comp)
			clear(z[at : at+20])
			damages["zero-"+itoa(at)] = z
		}
		for name, comp := range damages {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				mk := func() *Stream { return member(t, comp, tc.data, 256<<10) }
				seq, serr := streamAll(t, mk, nil)
				for _, patient := range []bool{false, true} {
					par, perr := streamAll(t, mk, &specKnobs{patient: patient})
					if serr == nil || perr == nil {
						t.Fatalf("sequential: %v, speculative: %v; want errors", serr, perr)
					}
					short, long := seq, par
					if len(short) > len(long) {
						short, long = long, short
					}
					if !bytes.Equal(short, long[:len(short)]) {
						t.Fatalf("outputs differ before the error (%d and %d bytes)", len(seq), len(par))
					}
				}
			})
		}
	}
}

func itoa(i int) string {
	b := []byte{}
	for ; i > 0 || len(b) == 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestMarkerInflater decodes whole streams from their start with the
// marker inflater: no markers, and the sequential output.
func TestMarkerInflater(t *testing.T) {
	for _, tc := range specCases() {
		if len(tc.data) == 0 {
			continue
		}
		mi := &markerInflater{in: tc.comp, out: make([]uint16, len(tc.data)+1), out8: make([]byte, len(tc.data)+windowSize)}
		mi.run(0, nil)
		got := make([]byte, 0, len(tc.data))
		prev := 0
		for _, be := range mi.blocks {
			w, b := mi.at(prev, be.out)
			for _, v := range w {
				if v >= markerBit {
					t.Fatalf("%s: marker in a stream decoded from its start", tc.name)
				}
				got = append(got, byte(v))
			}
			got = append(got, b...)
			prev = be.out
		}
		if !bytes.Equal(got, tc.data[:len(got)]) || len(got) < len(tc.data)/2 && len(tc.data) > 1<<20 {
			t.Fatalf("%s: %d bytes decoded, not a prefix of the data or too short", tc.name, len(got))
		}
	}
}
