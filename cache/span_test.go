package cache

import (
	"bytes"
	"context"
	"sync"
	"testing"
)

// fetched returns the requests and bytes of b's stats.
func fetched(b *Blob) (int64, int64) {
	c := b.Stats().Snapshot()
	return c.Requests, c.Bytes
}

// readBack reads [off, off+n) of b in pieces of piece bytes and checks it
// against src.
func readBack(t *testing.T, b *Blob, src *memSource, off, n, piece int64) {
	t.Helper()
	for pos := off; pos < off+n; pos += piece {
		m := min(piece, off+n-pos)
		p := make([]byte, m)
		if _, err := b.ReadAt(context.Background(), p, pos); err != nil {
			t.Fatalf("ReadAt(%d, %d): %v", pos, m, err)
		}
		if !bytes.Equal(p, src.data[pos:pos+m]) {
			t.Fatalf("ReadAt(%d, %d) differs from the source", pos, m)
		}
	}
}

func TestPrefetchFetchesExactly(t *testing.T) {
	b, src := newBlob(t, 4<<20, Config{})
	ctx := context.Background()
	off, n := int64(1<<20+12345), int64(300*kib+7)
	if err := b.Prefetch(ctx, off, n); err != nil {
		t.Fatal(err)
	}
	if reqs, got := fetched(b); reqs != 1 || got != n {
		t.Errorf("Prefetch(%d, %d): %d requests, %d bytes; want 1, %d", off, n, reqs, got, n)
	}
	readBack(t, b, src, off, n, 1000)
	if reqs, got := fetched(b); reqs != 1 || got != n {
		t.Errorf("after reading the range: %d requests, %d bytes; want 1, %d", reqs, got, n)
	}
	// Again: held, so nothing more.
	if err := b.Prefetch(ctx, off+10, 100); err != nil {
		t.Fatal(err)
	}
	if reqs, _ := fetched(b); reqs != 1 {
		t.Errorf("prefetching held bytes made %d requests in all, want 1", reqs)
	}
}

func TestPrefetchTrimsHeldBytes(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{})
	ctx := context.Background()
	pinAt := b.size - 64*kib
	b.Pin(pinAt, src.data[pinAt:])
	// A central directory that starts 500 KiB before the end: only the
	// part the pin does not hold is fetched.
	dir := b.size - 500*kib
	if err := b.Prefetch(ctx, dir, b.size-dir); err != nil {
		t.Fatal(err)
	}
	if reqs, got := fetched(b); reqs != 1 || got != pinAt-dir {
		t.Errorf("%d requests, %d bytes; want 1, %d", reqs, got, pinAt-dir)
	}
	// A read across the span and the pin needs nothing more.
	readBack(t, b, src, dir, b.size-dir, 64*kib+3)
	if reqs, _ := fetched(b); reqs != 1 {
		t.Errorf("reads made %d requests in all, want 1", reqs)
	}
}

func TestPrefetchFillsSmallGap(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{})
	ctx := context.Background()
	pinAt := b.size - 64*kib
	b.Pin(pinAt, src.data[pinAt:])
	// A member ending 10 KiB before the pin: the gap comes with it.
	off := pinAt - 40*kib
	if err := b.Prefetch(ctx, off, 30*kib); err != nil {
		t.Fatal(err)
	}
	if reqs, got := fetched(b); reqs != 1 || got != 40*kib {
		t.Errorf("%d requests, %d bytes; want 1, %d", reqs, got, 40*kib)
	}
	// The next member, in the gap, costs nothing.
	if err := b.Prefetch(ctx, off+30*kib, 5*kib); err != nil {
		t.Fatal(err)
	}
	readBack(t, b, src, off, 40*kib, 4*kib)
	if reqs, _ := fetched(b); reqs != 1 {
		t.Errorf("%d requests in all, want 1", reqs)
	}
	// A gap of 64 KiB or more is left alone.
	if err := b.Prefetch(ctx, 0, 100); err != nil {
		t.Fatal(err)
	}
	if reqs, got := fetched(b); reqs != 2 || got != 40*kib+100 {
		t.Errorf("%d requests, %d bytes; want 2, %d", reqs, got, 40*kib+100)
	}
}

// Ranges declared in order, as members read in order, are read ahead:
// they cost a few requests, not one each, and no more than aligned
// blocks would.
func TestPrefetchSequenceReadsAhead(t *testing.T) {
	b, src := newBlob(t, 8<<20, Config{})
	ctx := context.Background()
	const member = 300
	off := int64(0)
	for off+member <= 2<<20 {
		if err := b.Prefetch(ctx, off, member); err != nil {
			t.Fatal(err)
		}
		readBack(t, b, src, off, member, member)
		off += member
	}
	reqs, got := fetched(b)
	t.Logf("%d members in order: %d requests, %d bytes", off/member, reqs, got)
	blocks := (off + b.c.cfg.BlockSize - 1) / b.c.cfg.BlockSize
	// Readahead doubles from one block: 1 exact request, then 256 KiB,
	// 512 KiB, 1 MiB (and what is left).
	if reqs > blocks || reqs > 5 {
		t.Errorf("%d members in order: %d requests, want at most %d (aligned blocks) and 5", off/member, reqs, blocks)
	}
	if got > 2*off {
		t.Errorf("%d members in order: fetched %d bytes for %d", off/member, got, off)
	}
}

// A read inside a declared range that was not all fetched (it was larger
// than MaxReadahead) fetches up to the range's end, not whole blocks.
func TestReadInRegionStopsAtItsEnd(t *testing.T) {
	b, src := newBlob(t, 4<<20, Config{MaxReadahead: 256 * kib})
	ctx := context.Background()
	off, n := int64(1000), int64(1<<20+333)
	if err := b.Prefetch(ctx, off, n); err != nil {
		t.Fatal(err)
	}
	readBack(t, b, src, off, n, 32*kib)
	reqs, got := fetched(b)
	t.Logf("%d requests, %d bytes", reqs, got)
	if got != n {
		t.Errorf("fetched %d bytes in %d requests, want the %d of the range", got, reqs, n)
	}
	if reqs > 5 {
		t.Errorf("%d requests, want at most 5", reqs)
	}
}

func TestConcurrentPrefetchOneRequest(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{})
	src.gate = make(chan struct{})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			errs[i] = b.Prefetch(ctx, 5000, 20000)
			if errs[i] == nil {
				p := make([]byte, 20000)
				_, errs[i] = b.ReadAt(ctx, p, 5000)
			}
		})
	}
	for src.requests.Load() == 0 {
	}
	close(src.gate)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if reqs := src.requests.Load(); reqs != 1 {
		t.Errorf("8 concurrent prefetches of one range made %d requests, want 1", reqs)
	}
}

func TestSpansShareTheBudget(t *testing.T) {
	b, src := newBlob(t, 4<<20, Config{Budget: 600 * kib})
	ctx := context.Background()
	for i := range int64(4) {
		if err := b.Prefetch(ctx, i<<20, 200*kib); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.c.vc.Size(); got > 600*kib {
		t.Errorf("the cache holds %d bytes, over its budget", got)
	}
	// The first span was evicted: reading it fetches again, and right.
	readBack(t, b, src, 0, 200*kib, 50*kib)
	if reqs, _ := fetched(b); reqs != 5 {
		t.Errorf("%d requests, want 5", reqs)
	}
	// A span larger than the budget is served to its read, not kept.
	if err := b.Prefetch(ctx, 2<<20+500*kib, 700*kib); err != nil {
		t.Fatal(err)
	}
	readBack(t, b, src, 2<<20+500*kib, 100, 100)
	if got := b.c.vc.Size(); got > 600*kib {
		t.Errorf("the cache holds %d bytes, over its budget", got)
	}
}

// A large range right after a small one (a member's data after its
// header) is not read ahead: its end is where its reader stops.
func TestLargeRangeAfterHeaderNotReadAhead(t *testing.T) {
	b, _ := newBlob(t, 4<<20, Config{})
	ctx := context.Background()
	if err := b.Prefetch(ctx, 1000, 46); err != nil {
		t.Fatal(err)
	}
	if err := b.Prefetch(ctx, 1046, 1<<20); err != nil {
		t.Fatal(err)
	}
	if reqs, got := fetched(b); reqs != 2 || got != 46+1<<20 {
		t.Errorf("%d requests, %d bytes; want 2, %d", reqs, got, 46+1<<20)
	}
}

// Bytes already in blocks (a whole object put there, from a server that
// ignored Range) are held: declaring and reading them fetches nothing.
func TestPrefetchOfCachedBlocks(t *testing.T) {
	b, src := newBlob(t, 1<<20, Config{BlockSize: 64 * kib})
	ctx := context.Background()
	b.Put(0, src.data)
	if err := b.Prefetch(ctx, 1000, 300*kib); err != nil {
		t.Fatal(err)
	}
	readBack(t, b, src, 1000, 300*kib, 7*kib)
	if reqs, _ := fetched(b); reqs != 0 {
		t.Errorf("%d requests for bytes in blocks, want 0", reqs)
	}
}
