package inflate

import (
	"bytes"
	stdflate "compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/flate"

	"github.com/pipefs/pipefs/vfs"
)

// corpus returns n bytes of the given kind: "random" (stored blocks),
// "text" (Huffman blocks), "mixed" (both, alternating), "zeros".
func corpus(kind string, n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	words := make([]string, 2000)
	for i := range words {
		w := make([]byte, 2+r.IntN(9))
		for j := range w {
			w[j] = 'a' + byte(r.IntN(26))
		}
		words[i] = string(w) + " "
	}
	words[0] = "\n"
	text := func(p []byte) {
		for i := 0; i < len(p); {
			i += copy(p[i:], words[r.IntN(len(words))])
		}
	}
	switch kind {
	case "random":
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	case "text":
		text(b)
	case "mixed":
		for off := 0; off < n; {
			k := min(n-off, 1+r.IntN(200<<10))
			if r.IntN(2) == 0 {
				for i := off; i < off+k; i++ {
					b[i] = byte(r.Uint32())
				}
			} else {
				text(b[off : off+k])
			}
			off += k
		}
	}
	return b
}

type compressor struct {
	name string
	fn   func(t testing.TB, data []byte) []byte
}

var compressors = []compressor{
	{"stdlib-6", func(t testing.TB, data []byte) []byte {
		var buf bytes.Buffer
		w, _ := stdflate.NewWriter(&buf, 6)
		w.Write(data)
		w.Close()
		return buf.Bytes()
	}},
	{"klauspost-6", func(t testing.TB, data []byte) []byte {
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, 6)
		w.Write(data)
		w.Close()
		return buf.Bytes()
	}},
	{"klauspost-1-flushes", func(t testing.TB, data []byte) []byte {
		// Flushes write empty stored blocks at odd bit offsets.
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, 1)
		for len(data) > 0 {
			k := min(len(data), 70001)
			w.Write(data[:k])
			w.Flush()
			data = data[k:]
		}
		w.Close()
		return buf.Bytes()
	}},
	{"stdlib-0-stored", func(t testing.TB, data []byte) []byte {
		var buf bytes.Buffer
		w, _ := stdflate.NewWriter(&buf, 0)
		w.Write(data)
		w.Close()
		return buf.Bytes()
	}},
}

func member(t testing.TB, comp []byte, data []byte, spacing int64) *Stream {
	src := driver.BytesBlob(comp, nil)
	return NewMember(src, 0, int64(len(comp)), int64(len(data)), crc32.ChecksumIEEE(data), true, "",
		&Options{Spacing: spacing})
}

// TestCheckpoints decodes each stream once, then checks that the index
// has its checkpoints and that reads at random offsets resume from them.
func TestCheckpoints(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"random", "text", "mixed"} {
		data := corpus(kind, 3<<20, 7)
		for _, c := range compressors {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				comp := c.fn(t, data)
				s := member(t, comp, data, 64<<10)
				defer s.Close()
				got, err := io.ReadAll(io.NewSectionReader(ra(ctx, s), 0, 1<<40))
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("sequential read: %d bytes, err %v; equal %v", len(got), err, bytes.Equal(got, data))
				}
				pts, _ := s.Index().Stats()
				if want := len(data) / (256 << 10); pts < want {
					t.Errorf("index has %d points, want at least %d", pts, want)
				}
				// Every checkpoint resumes: read just after each one with a
				// new stream sharing nothing but the index.
				ix := s.Index()
				for i, p := range ix.points {
					s2 := member(t, comp, data, 64<<10)
					s2.ix = ix
					buf := make([]byte, 100)
					n, err := s2.ReadAt(ctx, buf, p.out)
					if err != nil && err != io.EOF || !bytes.Equal(buf[:n], data[p.out:p.out+int64(n)]) {
						t.Fatalf("point %d (%v): read %d, err %v", i, p, n, err)
					}
					if n := s2.dropped.Load(); n != 0 {
						t.Errorf("point %d: %d checkpoint candidates matched no offset", i, n)
					}
				}
				r := rand.New(rand.NewPCG(1, 2))
				buf := make([]byte, 4096)
				for range 200 {
					off := r.Int64N(int64(len(data)))
					n, err := s.ReadAt(ctx, buf, off)
					if err != nil && err != io.EOF || !bytes.Equal(buf[:n], data[off:off+int64(n)]) {
						t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
					}
				}
				if n := s.dropped.Load(); n != 0 {
					t.Errorf("%d checkpoint candidates matched no offset", n)
				}
			})
		}
	}
}

// TestConcurrent reads from many goroutines at once, before any index
// exists.
func TestConcurrent(t *testing.T) {
	ctx := context.Background()
	data := corpus("mixed", 2<<20, 3)
	comp := compressors[0].fn(t, data)
	s := member(t, comp, data, 64<<10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 9))
			buf := make([]byte, 1000)
			for range 50 {
				off := r.Int64N(int64(len(data)))
				n, err := s.ReadAt(ctx, buf, off)
				if err != nil && err != io.EOF || !bytes.Equal(buf[:n], data[off:off+int64(n)]) {
					t.Errorf("ReadAt(%d) = %d, %v", off, n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestMemberErrors(t *testing.T) {
	ctx := context.Background()
	data := corpus("text", 200<<10, 5)
	comp := compressors[1].fn(t, data)
	crc := crc32.ChecksumIEEE(data)
	cases := []struct {
		name       string
		comp       []byte
		usize      int64
		crc        uint32
		want       error
		csizeDelta int64
	}{
		{name: "ok", comp: comp, usize: int64(len(data)), crc: crc},
		{name: "bad crc", comp: comp, usize: int64(len(data)), crc: crc + 1, want: driver.ErrCorrupt},
		{name: "longer", comp: comp, usize: int64(len(data)) - 1, crc: crc, want: driver.ErrCorrupt},
		{name: "shorter", comp: comp, usize: int64(len(data)) + 1, crc: crc, want: driver.ErrCorrupt},
		{name: "truncated", comp: comp[:len(comp)/2], usize: int64(len(data)), crc: crc, want: driver.ErrCorrupt},
		{name: "garbage", comp: bytes.Repeat([]byte{0xff}, 1000), usize: 5000, crc: crc, want: driver.ErrCorrupt},
		{name: "extra input", comp: append(bytes.Clone(comp), 0, 0), usize: int64(len(data)), crc: crc, want: driver.ErrCorrupt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewMember(driver.BytesBlob(tc.comp, nil), 0, int64(len(tc.comp)), tc.usize, tc.crc, true, "", nil)
			_, err := io.ReadAll(io.NewSectionReader(ra(ctx, s), 0, 1<<40))
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("ReadAll = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestRatioLimit(t *testing.T) {
	ctx := context.Background()
	data := make([]byte, 64<<20)
	comp := compressors[1].fn(t, data)
	s := NewMember(driver.BytesBlob(comp, nil), 0, int64(len(comp)), int64(len(data)), crc32.ChecksumIEEE(data), true, "",
		&Options{Limits: vfs.Limits{MaxRatio: 100, RatioFloor: 1 << 20}})
	_, err := io.Copy(io.Discard, io.NewSectionReader(ra(ctx, s), 0, 1<<40))
	if !errors.Is(err, driver.ErrLimit) {
		t.Fatalf("Copy = %v, want ErrLimit", err)
	}
	s = NewMember(driver.BytesBlob(comp, nil), 0, int64(len(comp)), int64(len(data)), crc32.ChecksumIEEE(data), true, "",
		&Options{Limits: vfs.Limits{MaxFileSize: 1 << 20}})
	_, err = io.Copy(io.Discard, io.NewSectionReader(ra(ctx, s), 0, 1<<40))
	if !errors.Is(err, driver.ErrLimit) {
		t.Fatalf("Copy = %v, want ErrLimit", err)
	}
}

func TestCache(t *testing.T) {
	data := corpus("text", 1<<20, 5)
	comp := compressors[1].fn(t, data)
	src := driver.BytesBlob(comp, nil)
	key := fmt.Sprintf("test:%d", len(comp))
	vc := vfs.NewCache(0)
	open := func(o *Options) *Stream {
		return NewMember(src, 0, int64(len(comp)), int64(len(data)), crc32.ChecksumIEEE(data), true, key, o)
	}
	a := open(&Options{Spacing: 64 << 10, Cache: vc})
	io.Copy(io.Discard, io.NewSectionReader(ra(context.Background(), a), 0, 1<<40))
	b := open(&Options{Cache: vc})
	if a.Index() != b.Index() {
		t.Fatal("second open did not reuse the cached index")
	}
	n, win := b.Index().Stats()
	if n < 2 {
		t.Errorf("cached index has %d points", n)
	}
	// The index costs its windows, counted as it grew, and its base.
	if got, want := vc.Size(), win+indexBase; got != want {
		t.Errorf("cache holds %d bytes, want %d (windows %d + %d)", got, want, win, indexBase)
	}
	if open(&Options{Cache: vfs.NewCache(0)}).Index() == a.Index() {
		t.Error("another cache shared the index")
	}
	// A budget smaller than the index evicts it; the streams holding it
	// still read, and the next open builds a new one.
	vc.SetBudget(win / 2)
	if vc.Size() > vc.Budget() || vc.Len() != 0 {
		t.Errorf("after SetBudget(%d): %d bytes in %d entries", win/2, vc.Size(), vc.Len())
	}
	p := make([]byte, 1000)
	if _, err := b.ReadAt(context.Background(), p, int64(len(data))/2); err != nil || !bytes.Equal(p, data[len(data)/2:len(data)/2+1000]) {
		t.Errorf("ReadAt after eviction: %v", err)
	}
	c := open(&Options{Cache: vc})
	if c.Index() == a.Index() {
		t.Error("open after eviction reused the evicted index")
	}
	// Forget drops the stream's own index only.
	vc.SetBudget(0)
	d := open(&Options{Cache: vc})
	if d.Index() != c.Index() {
		t.Fatal("open did not reuse the cached index")
	}
	a.Forget()
	if open(&Options{Cache: vc}).Index() != c.Index() {
		t.Error("Forget of an evicted index dropped another")
	}
	d.Forget()
	if open(&Options{Cache: vc}).Index() == c.Index() {
		t.Error("Forget did not drop the index")
	}
}

type streamReaderAt struct {
	ctx context.Context
	s   *Stream
}

func (r streamReaderAt) ReadAt(p []byte, off int64) (int, error) { return r.s.ReadAt(r.ctx, p, off) }

func ra(ctx context.Context, s *Stream) io.ReaderAt { return streamReaderAt{ctx, s} }
