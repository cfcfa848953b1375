package cache

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/pipefs/pipefs/vfs/driver"
)

// memSource serves ranges of data and counts requests; short cuts bodies.
type memSource struct {
	data     []byte
	requests atomic.Int64
	short    atomic.Bool
	fail     error         // when set, bodies fail with it half way
	gate     chan struct{} // when set, requests wait for it
	started  chan int64    // when set, each request sends its offset on it
}

func (s *memSource) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	s.requests.Add(1)
	if s.started != nil {
		s.started <- off
	}
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	b := s.data[off : off+n]
	if s.short.Load() {
		b = b[:len(b)/2]
	}
	if s.fail != nil {
		return io.NopCloser(io.MultiReader(bytes.NewReader(b[:len(b)/2]), iotest.ErrReader(s.fail))), nil
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func newBlob(t *testing.T, size int, cfg Config) (*Blob, *memSource) {
	t.Helper()
	data := make([]byte, size)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	src := &memSource{data: data}
	c := New(cfg)
	return c.Blob(src, "obj", &driver.FileInfo{FName: "obj", FSize: int64(size)}, nil), src
}

const kib = 1 << 10

func TestReadAtMatchesSource(t *testing.T) {
	b, src := newBlob(t, 1000*kib+17, Config{BlockSize: 64 * kib})
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		off := r.Int64N(b.size + 100)
		n := r.IntN(200 * kib)
		p := make([]byte, n)
		got, err := b.ReadAt(context.Background(), p, off)
		want := max(0, min(int64(n), b.size-off))
		if int64(got) != want {
			t.Fatalf("ReadAt(%d, %d) = %d, want %d", n, off, got, want)
		}
		if (int64(n) > want) != (err == io.EOF) {
			t.Fatalf("ReadAt(%d, %d) err = %v", n, off, err)
		}
		if !bytes.Equal(p[:got], src.data[min(off, b.size):min(off, b.size)+int64(got)]) {
			t.Fatalf("ReadAt(%d, %d): wrong bytes", n, off)
		}
	}
}

func TestCoalescedAndCached(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib})
	ctx := context.Background()
	p := make([]byte, 3*64*kib)
	if _, err := b.ReadAt(ctx, p, 10*kib); err != nil { // touches 4 blocks
		t.Fatal(err)
	}
	if got := src.requests.Load(); got != 1 {
		t.Errorf("a read over 4 missing blocks made %d requests, want 1", got)
	}
	if _, err := b.ReadAt(ctx, p[:100], 70*kib); err != nil {
		t.Fatal(err)
	}
	if got := src.requests.Load(); got != 1 {
		t.Errorf("a cached read made a request: %d", got)
	}
	c := b.Stats().Snapshot()
	if c.Requests != 1 || c.Misses != 4 || c.Bytes != 4*64*kib || c.Hits != 1 {
		t.Errorf("stats = %+v, want 1 request, 4 misses, %d bytes, 1 hit", c, 4*64*kib)
	}
}

func TestOneFetchPerBlock(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib})
	src.gate = make(chan struct{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			p := make([]byte, 100)
			if _, err := b.ReadAt(context.Background(), p, 5); err != nil {
				t.Error(err)
			}
		})
	}
	for src.requests.Load() == 0 {
		// wait until the first request is in flight
	}
	close(src.gate)
	wg.Wait()
	if got := src.requests.Load(); got != 1 {
		t.Errorf("16 concurrent reads of one block made %d requests, want 1", got)
	}
}

func TestReadaheadGrowsOnSequentialReads(t *testing.T) {
	b, src := newBlob(t, 16<<20, Config{BlockSize: 64 * kib, MaxReadahead: 4 << 20})
	ctx := context.Background()
	p := make([]byte, 32*kib)
	var off int64
	for off < b.size {
		n, err := b.ReadAt(ctx, p, off)
		off += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// 256 blocks: readahead doubles from 1 block to 64 blocks (4 MiB).
	if got := src.requests.Load(); got > 12 {
		t.Errorf("a sequential read of 16 MiB made %d requests, want at most 12", got)
	}
	if got := b.Stats().Snapshot().Bytes; got != b.size {
		t.Errorf("a sequential read fetched %d bytes, want exactly %d", got, b.size)
	}

	b2, src2 := newBlob(t, 16<<20, Config{BlockSize: 64 * kib})
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		b2.ReadAt(ctx, p[:100], r.Int64N(b2.size-100))
	}
	if got := b2.Stats().Snapshot().Bytes; got > 20*64*kib {
		t.Errorf("20 random reads fetched %d bytes, want at most 20 blocks", got)
	}
	_ = src2
}

func TestBudgetEvicts(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib, Budget: 2 * 64 * kib})
	ctx := context.Background()
	p := make([]byte, 10)
	for _, off := range []int64{0, 200 * kib, 400 * kib, 0} {
		if _, err := b.ReadAt(ctx, p, off); err != nil {
			t.Fatal(err)
		}
	}
	if got := src.requests.Load(); got != 4 {
		t.Errorf("requests = %d, want 4 (block 0 evicted by a 2-block budget)", got)
	}
	if got := b.c.Len(); got != 2 {
		t.Errorf("cache holds %d blocks, want 2", got)
	}
}

// A body that ends before the bytes asked for is an I/O error
// (io.ErrUnexpectedEOF), whether it fills blocks or a declared span: the
// source gave no wrong byte, so it is not corrupt data. A failed fetch is
// not cached, and the next read is answered.
func TestShortBodyIsAnIOError(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(b *Blob, p []byte) (int, error)
	}{
		{"blocks", func(b *Blob, p []byte) (int, error) { return b.ReadAt(context.Background(), p, 0) }},
		{"span", func(b *Blob, p []byte) (int, error) {
			if err := b.Prefetch(context.Background(), 0, int64(len(p))); err != nil {
				return 0, err
			}
			return b.ReadAt(context.Background(), p, 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib})
			src.short.Store(true)
			p := make([]byte, 100*kib)
			n, err := tc.read(b, p)
			if n != 0 || !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("read over a short body = %d, %v; want 0 and io.ErrUnexpectedEOF, not ErrCorrupt", n, err)
			}
			src.short.Store(false)
			if n, err := tc.read(b, p); err != nil || !bytes.Equal(p[:n], src.data[:len(p)]) {
				t.Errorf("read after the short body = %d, %v: a failed fetch must not be cached", n, err)
			}
		})
	}
}

// A body that fails on its way fails the read with its own error.
func TestBodyErrorKept(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib})
	src.fail = syscall.ECONNRESET
	_, err := b.ReadAt(context.Background(), make([]byte, 10), 0)
	if !errors.Is(err, syscall.ECONNRESET) || errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("read over a reset body = %v, want ECONNRESET", err)
	}
}

func TestPinAndPrefetch(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib})
	ctx := context.Background()
	b.Pin(b.size-64*kib, src.data[b.size-64*kib:])
	p := make([]byte, 22)
	if _, err := b.ReadAt(ctx, p, b.size-22); err != nil || !bytes.Equal(p, src.data[b.size-22:]) {
		t.Fatalf("pinned read: %v", err)
	}
	if got := src.requests.Load(); got != 0 {
		t.Errorf("a pinned read made %d requests", got)
	}
	if err := b.Prefetch(ctx, 100*kib, 300*kib); err != nil {
		t.Fatal(err)
	}
	for off := int64(100 * kib); off < 400*kib; off += 10 * kib {
		b.ReadAt(ctx, p, off)
	}
	if got := src.requests.Load(); got != 1 {
		t.Errorf("prefetch then reads made %d requests, want 1", got)
	}
}

func TestCancelledWaiter(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib})
	src.gate = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := b.ReadAt(ctx, make([]byte, 10), 0)
		done <- err
	}()
	for src.requests.Load() == 0 {
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read = %v, want context.Canceled", err)
	}
	close(src.gate)
	if _, err := b.ReadAt(context.Background(), make([]byte, 10), 0); err != nil {
		t.Errorf("read after a cancelled fetch = %v", err)
	}
}
