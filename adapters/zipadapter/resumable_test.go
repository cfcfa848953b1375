package zipadapter

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// countingBlob counts the bytes read from a blob.
type countingBlob struct {
	driver.Blob
	n atomic.Int64
}

func (c *countingBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	n, err := c.Blob.ReadAt(ctx, p, off)
	c.n.Add(int64(n))
	return n, err
}

// TestDeflate64RandomAccess reads 7z's Deflate64 member at random: the
// first read checks the whole member and records checkpoints; later reads
// resume at one, reading a part of the compressed data only, and every
// read, concurrent ones included, returns the source's bytes.
func TestDeflate64RandomAccess(t *testing.T) {
	ctx := context.Background()
	want := methodSrc(t, "dir/rep.bin")
	a, _ := openMethods(t, "7z-deflate64.zip", nil)
	blob, err := a.OpenBlob(ctx, "dir/rep.bin")
	if err != nil {
		t.Fatal(err)
	}
	b := blob.(*resumableBlob)
	b.spacing = 16 << 10
	src := &countingBlob{Blob: b.src}
	b.src = src
	p := make([]byte, 1000)
	if n, err := b.ReadAt(ctx, p, 50_000); n != len(p) || err != nil || !bytes.Equal(p, want[50_000:51_000]) {
		t.Fatalf("ReadAt(50000) = %d, %v", n, err)
	}
	if len(b.points) < 2 {
		t.Fatalf("%d checkpoints, want 2 or more", len(b.points))
	}
	b.cur = nil
	src.n.Store(0)
	last := b.points[len(b.points)-1]
	off := last.out + 10
	if n, err := b.ReadAt(ctx, p[:10], off); n != 10 || (err != nil && err != io.EOF) || !bytes.Equal(p[:10], want[off:off+10]) {
		t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
	}
	if n := src.n.Load(); n >= b.csize-last.in+64<<10 || n == 0 {
		t.Errorf("a read past the last checkpoint read %d compressed bytes; from it there are %d", n, b.csize-last.in)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			q := make([]byte, 3000)
			for off := int64(g * 997); off < int64(len(want)); off += 7919 {
				n, err := b.ReadAt(ctx, q, off)
				if (err != nil && err != io.EOF) || !bytes.Equal(q[:n], want[off:off+int64(n)]) {
					t.Errorf("ReadAt(%d) = %d, %v", off, n, err)
					return
				}
			}
		})
	}
	wg.Wait()
	// A stream from the middle starts at a checkpoint too.
	rc, err := b.Stream(ctx, 70_000)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	if err != nil || !bytes.Equal(got, want[70_000:]) {
		t.Errorf("Stream(70000): %d bytes, %v", len(got), err)
	}
}

// TestDeflate64StreamChecks reads a member with a stream first: the
// stream checks it and gives the blob its checkpoints, so a ReadAt after
// it runs no pass of its own.
func TestDeflate64StreamChecks(t *testing.T) {
	ctx := context.Background()
	want := methodSrc(t, "dir/rep.bin")
	a, _ := openMethods(t, "7z-deflate64.zip", nil)
	blob, err := a.OpenBlob(ctx, "dir/rep.bin")
	if err != nil {
		t.Fatal(err)
	}
	b := blob.(*resumableBlob)
	b.spacing = 16 << 10
	rc, err := b.Stream(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(rc); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("stream: %d bytes, %v", len(got), err)
	}
	if !b.checked || len(b.points) < 2 {
		t.Fatalf("after a stream: checked %v, %d checkpoints", b.checked, len(b.points))
	}
}
