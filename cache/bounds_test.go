package cache

import (
	"bytes"
	"context"
	"testing"
	"time"
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
