package cache

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A read of more blocks than the budget holds is answered from the bytes
// it fetched, not looked up again in an LRU that has already evicted
// them: one request, and no endless refetching.
func TestReadLargerThanBudget(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib, Budget: 64 * kib})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p := make([]byte, 4*64*kib)
	n, err := b.ReadAt(ctx, p, 10)
	if err != nil || n != len(p) || !bytes.Equal(p, src.data[10:10+len(p)]) {
		t.Fatalf("ReadAt(4 blocks) under a 1-block budget = %d, %v", n, err)
	}
	if got := src.requests.Load(); got != 1 {
		t.Errorf("ReadAt(4 blocks) under a 1-block budget made %d requests, want 1", got)
	}
	if got := b.c.Len(); got != 1 {
		t.Errorf("cache holds %d blocks, want 1", got)
	}
}

// panicSource panics on its first request and then serves data.
type panicSource struct {
	memSource
	panicked bool
}

func (s *panicSource) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	if !s.panicked {
		s.panicked = true
		panic("source bug")
	}
	return s.memSource.ReadRange(ctx, off, n)
}

// A Source that panics leaves neither the cache locked nor a block's
// flight open: later reads of the same block are answered.
func TestSourcePanicReleasesFlights(t *testing.T) {
	src := &panicSource{memSource: memSource{data: make([]byte, 1<<20)}}
	b := New(Config{BlockSize: 64 * kib}).Blob(src, "obj", &driver.FileInfo{FName: "obj", FSize: 1 << 20}, nil)
	func() {
		defer func() { recover() }()
		b.ReadAt(context.Background(), make([]byte, 10), 0)
	}()
	done := make(chan error, 1)
	go func() {
		_, err := b.ReadAt(context.Background(), make([]byte, 10), 0)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ReadAt after a panicking fetch = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadAt after a panicking fetch hangs")
	}
}

// Put copies the blocks it keeps: a block must not hold the whole of a
// large buffer alive after its neighbours are evicted, or the budget in
// bytes would not bound the memory held.
func TestPutDoesNotShareBuffer(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib})
	whole := bytes.Clone(src.data)
	b.Put(0, whole)
	if got := b.c.Len(); got != 16 {
		t.Fatalf("Put of 16 blocks cached %d", got)
	}
	for i := range int64(16) {
		v, ok := b.c.vc.Peek(blockKey{b.c, b.key, i})
		if !ok {
			t.Fatalf("block %d missing after Put", i)
		}
		blk := v.(*block).data
		if &blk[0] == &whole[i*64*kib] {
			t.Fatalf("block %d shares the buffer given to Put", i)
		}
		if !bytes.Equal(blk, src.data[i*64*kib:(i+1)*64*kib]) {
			t.Fatalf("block %d has wrong bytes", i)
		}
	}
}
