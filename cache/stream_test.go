package cache

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// readAll reads b from the start in reads of n bytes, as io.Copy through
// vfs.File.WriteTo does, and checks the bytes against src.
func readAll(t *testing.T, b *Blob, src *memSource, n int) {
	t.Helper()
	p := make([]byte, n)
	for off := int64(0); off < b.size; {
		m, err := b.ReadAt(context.Background(), p, off)
		if !bytes.Equal(p[:m], src.data[off:off+int64(m)]) {
			t.Fatalf("bytes at %d differ from the source", off)
		}
		off += int64(m)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	b.partsWG.Wait()
}

// A large sequential read fetches its readahead as parts of PartSize, in
// parallel, each byte once. The requests are deterministic: where the
// parts start does not depend on when the parts before them ended.
//
// 16 MiB read 1 MiB at a time, blocks of 256 KiB: the first read fetches
// its 4 blocks; the second, whose readahead is 4 MiB (four times the
// read) and so at least a part, fetches the rest as parts of 2 MiB from
// its first block (1 MiB), 8 of them (the last 1 MiB): 1 + 8 = 9
// requests, where readahead with the read (Streams 1) makes 3 one after
// the other (1, 5 and 10 MiB). Read 32 KiB at a time, 9 too: a block,
// then parts from the second block on, once the readahead reached a part.
func TestParallelReadahead(t *testing.T) {
	for _, tc := range []struct {
		streams, read int
		want          int64
	}{{8, 1 << 20, 9}, {1, 1 << 20, 3}, {8, 32 << 10, 9}} {
		b, src := newBlob(t, 16<<20, Config{Streams: tc.streams})
		readAll(t, b, src, tc.read)
		if got := src.requests.Load(); got != tc.want {
			t.Errorf("Streams %d: 16 MiB read %d bytes at a time made %d requests, want %d", tc.streams, tc.read, got, tc.want)
		}
		if got := b.Stats().Snapshot().Bytes; got != b.size {
			t.Errorf("Streams %d: fetched %d bytes, want exactly %d", tc.streams, got, b.size)
		}
		if len(b.c.inflight) != 0 || b.c.parts != 0 {
			t.Errorf("Streams %d: %d flights and %d bytes of parts left", tc.streams, len(b.c.inflight), b.c.parts)
		}
	}
}

// Small sequential reads of a small object cost what they did before
// parallel readahead (a block, then the rest): the part that the
// readahead reaches holds the rest.
func TestSmallSequentialUnchanged(t *testing.T) {
	for _, streams := range []int{8, 1} {
		b, src := newBlob(t, 1<<20, Config{Streams: streams})
		readAll(t, b, src, 32<<10)
		if got := src.requests.Load(); got != 2 {
			t.Errorf("Streams %d: 1 MiB read 32 KiB at a time made %d requests, want 2", streams, got)
		}
	}
}

// Cancelling the read that issued parts stops every one of them: their
// requests end, their flights end, and what they counted against the
// bound is given back.
func TestCancelStopsParts(t *testing.T) {
	const streams = 4
	b, src := newBlob(t, 8<<20, Config{BlockSize: 64 << 10, PartSize: 256 << 10, Streams: streams, MaxReadahead: 1 << 20})
	src.gate = make(chan struct{}) // never opened: requests wait for their context
	src.started = make(chan int64, 64)
	b.Put(0, src.data[:1<<20])
	ctx, cancel := context.WithCancel(context.Background())
	p := make([]byte, 64<<10)
	off := int64(0)
	for ; off < 1<<20; off += int64(len(p)) {
		if _, err := b.ReadAt(ctx, p, off); err != nil { // held: put
			t.Fatal(err)
		}
	}
	errc := make(chan error)
	go func() {
		_, err := b.ReadAt(ctx, p, off)
		errc <- err
	}()
	for range streams {
		<-src.started // the parts' requests are under way
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the read waiting for a part: %v, want context.Canceled", err)
	}
	b.partsWG.Wait() // hangs if a part did not stop
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	if len(b.c.inflight) != 0 || b.c.parts != 0 {
		t.Errorf("after cancelling: %d flights and %d bytes of parts left", len(b.c.inflight), b.c.parts)
	}
	if n := src.requests.Load(); n != streams {
		t.Errorf("%d requests, want the %d parts", n, streams)
	}
}

// A sequential read of an object larger than an eighth of the budget, or
// than twice MaxReadahead, drops the blocks it has passed: what the cache
// holds stays within the readahead, however large the object, and the
// bytes read are still right. A smaller object stays cached whole, and a
// second read of the large one fetches it again.
func TestDropBehind(t *testing.T) {
	for _, tc := range []struct {
		size    int
		budget  int64
		dropped bool
	}{
		{32 << 20, 64 << 20, true}, // over an eighth of the budget
		{8 << 20, 64 << 20, false}, // an eighth of it
		{48 << 20, 1 << 30, true},  // over twice MaxReadahead
		{32 << 20, 1 << 30, false}, // twice MaxReadahead
	} {
		budget := tc.budget
		b, src := newBlob(t, tc.size, Config{Budget: budget, Streams: 8})
		cfg := b.c.Config()
		p := make([]byte, 1<<20)
		var peak int64
		for off := int64(0); off < b.size; off += int64(len(p)) {
			if _, err := b.ReadAt(context.Background(), p, off); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if !bytes.Equal(p, src.data[off:off+int64(len(p))]) {
				t.Fatalf("%d MiB: bytes at %d differ from the source", tc.size>>20, off)
			}
			peak = max(peak, b.c.vc.Size())
		}
		b.WaitParts()
		held := b.c.vc.Size()
		if !tc.dropped {
			if held != b.size {
				t.Errorf("%d MiB, budget %d MiB: %d bytes held after a sequential read, want the whole object", tc.size>>20, budget>>20, held)
			}
			continue
		}
		// The last read's blocks remain; before them, at most twice
		// the readahead, a part and the read were ever held.
		if want := int64(len(p)); held != want {
			t.Errorf("%d MiB: %d bytes held after a sequential read, want the last read's %d", tc.size>>20, held, want)
		}
		if bound := 2*cfg.MaxReadahead + cfg.PartSize + int64(len(p)); peak > bound {
			t.Errorf("%d MiB: %d bytes held during the read, over %d", tc.size>>20, peak, bound)
		}
		before := src.requests.Load()
		readAll(t, b, src, 1<<20)
		if src.requests.Load() == before {
			t.Errorf("%d MiB: a second sequential read made no request: its blocks were kept", tc.size>>20)
		}
	}
}
