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

// TestRandomAccess reads 7z's Deflate64 member and a Zstandard member
// in frames at random: the first read checks the whole member and
// records points; later reads resume at one, reading a part of the
// compressed data only, and every read, concurrent ones included, returns
// the source's bytes.
func TestRandomAccess(t *testing.T) {
	for _, tc := range []struct {
		zip, member string
		spacing     int64
		points      int
	}{
		{"7z-deflate64.zip", "dir/rep.bin", 16 << 10, 2},
		{"go-zstd-frames.zip", "seq.txt", 1, 4},
	} {
		t.Run(tc.zip, func(t *testing.T) { testRandomAccess(t, tc.zip, tc.member, tc.spacing, tc.points) })
	}
}

func testRandomAccess(t *testing.T, zip, member string, spacing int64, points int) {
	ctx := context.Background()
	want := methodSrc(t, member)
	a, _ := openMethods(t, zip, nil)
	blob, err := a.OpenBlob(ctx, member)
	if err != nil {
		t.Fatal(err)
	}
	b := blob.(*resumableBlob)
	b.spacing = spacing
	src := &countingBlob{Blob: b.src}
	b.src = src
	p := make([]byte, 1000)
	mid := int64(len(want) / 2)
	if n, err := b.ReadAt(ctx, p, mid); n != len(p) || err != nil || !bytes.Equal(p, want[mid:mid+1000]) {
		t.Fatalf("ReadAt(%d) = %d, %v", mid, n, err)
	}
	if len(b.points) < points {
		t.Fatalf("%d points, want %d or more", len(b.points), points)
	}
	b.cur = nil
	src.n.Store(0)
	last := b.points[len(b.points)-1]
	off := last.out + 10
	if n, err := b.ReadAt(ctx, p[:10], off); n != 10 || (err != nil && err != io.EOF) || !bytes.Equal(p[:10], want[off:off+10]) {
		t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
	}
	if n := src.n.Load(); n > b.csize-last.in+64<<10 || n == 0 || n >= b.csize {
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
	// A stream from the middle starts at a point too.
	rc, err := b.Stream(ctx, mid+100)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	if err != nil || !bytes.Equal(got, want[mid+100:]) {
		t.Errorf("Stream(%d): %d bytes, %v", mid+100, len(got), err)
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
