package inflate

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestReadWithheld: a ReadAt of a member that no pass has checked decodes
// on to the member's end, and a member whose CRC-32 does not match gives
// none of its bytes, wherever the read is; once the member is checked, a
// read decodes only to the next checkpoint.
func TestReadWithheld(t *testing.T) {
	ctx := context.Background()
	data := corpus("text", 4<<20, 3)
	comp := compressors[0].fn(t, data)
	bad := NewMember(driver.BytesBlob(comp, nil), 0, int64(len(comp)), int64(len(data)), crc32.ChecksumIEEE(data)+1, true, "",
		&Options{Spacing: 256 << 10})
	p := make([]byte, 100)
	for _, off := range []int64{0, 1 << 20, int64(len(data)) - 200} {
		if n, err := bad.ReadAt(ctx, p, off); n != 0 || !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("ReadAt(%d) of a member with a wrong CRC-32: %d bytes, %v; want none and driver.ErrCorrupt", off, n, err)
		}
	}
	if _, err := bad.ReadAt(driver.Unverified(ctx), p, 0); err != nil || !bytes.Equal(p, data[:100]) {
		t.Errorf("an unverified ReadAt of the start: %v", err)
	}

	good := NewMember(driver.BytesBlob(comp, nil), 0, int64(len(comp)), int64(len(data)), crc32.ChecksumIEEE(data), true, "",
		&Options{Spacing: 256 << 10})
	if _, err := good.ReadAt(ctx, p, 0); err != nil || !bytes.Equal(p, data[:100]) {
		t.Fatalf("ReadAt(0): %v", err)
	}
	if v := good.Index().Verified(); v != int64(len(data)) {
		t.Errorf("after the first read the index is verified to %d, want %d (the member's end)", v, len(data))
	}
	// Reads in sequence are served from what the check decoded.
	got := make([]byte, len(data))
	for off := 0; off < len(data); off += 50 << 10 {
		n, err := good.ReadAt(ctx, got[off:min(off+50<<10, len(data))], int64(off))
		if err != nil && err != io.EOF || n != min(50<<10, len(data)-off) {
			t.Fatalf("ReadAt(%d): %d, %v", off, n, err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Error("sequential reads differ from the data")
	}
}

// TestSegmentCheck: with a checked index, a read decodes on to the next
// checkpoint and compares its CRC-32 with the one the checked pass
// recorded there. A source whose bytes changed under the same key (a
// failing disk, a lying store) fails the reads of the damaged segment,
// with no bytes, and only those.
func TestSegmentCheck(t *testing.T) {
	ctx := context.Background()
	data := corpus("text", 4<<20, 5)
	comp := compressors[0].fn(t, data)
	c := vfs.NewCache(0)
	o := &Options{Spacing: 256 << 10, Cache: c}
	mk := func(b []byte) *Stream {
		return NewMember(driver.BytesBlob(b, nil), 0, int64(len(b)), int64(len(data)), crc32.ChecksumIEEE(data), true, "k", o)
	}
	s := mk(comp)
	if _, err := io.Copy(io.Discard, io.NewSectionReader(ra(ctx, s), 0, int64(len(data)))); err != nil {
		t.Fatal(err)
	}
	ix := s.Index()
	if !ix.Checked() {
		t.Fatal("a full pass left the index unchecked")
	}
	// Damage the input in the middle of segment k.
	ix.mu.Lock()
	pts := append([]point(nil), ix.points...)
	ix.mu.Unlock()
	if len(pts) < 8 {
		t.Fatalf("%d checkpoints", len(pts))
	}
	k := len(pts) / 2
	damaged := bytes.Clone(comp)
	at := (pts[k].in + pts[k+1].in) / 2
	damaged[at] ^= 0x10
	d := mk(damaged)
	p := make([]byte, 64)
	var bad, good int
	for i := 1; i+1 < len(pts); i++ {
		off := (pts[i].out + pts[i+1].out) / 2
		n, err := d.ReadAt(ctx, p, off)
		switch {
		case err == nil && bytes.Equal(p, data[off:off+64]):
			good++
		case errors.Is(err, driver.ErrCorrupt) && n == 0:
			bad++
			if i < k {
				t.Errorf("a read in segment %d, before the damage in segment %d, failed: %v", i, k, err)
			}
		default:
			t.Errorf("ReadAt(%d) in segment %d (damage in %d): %d bytes, %v, equal %v", off, i, k, n, err, bytes.Equal(p, data[off:off+64]))
		}
	}
	if bad == 0 || good == 0 {
		t.Errorf("%d reads failed and %d succeeded; want the damaged segment's reads to fail and the others' to succeed", bad, good)
	}
}

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

// TestCheckedSequentialLinear: sequential reads of 128 KiB, after a first
// pass checked the stream, decode it about once, even where the
// checkpoints lie far more than the held output apart (runs of zeros,
// whose DEFLATE blocks each hold megabytes): a segment this stream checked
// needs no check again, so the reads go on with one decoder instead of
// decoding the gap again for every held window.
func TestCheckedSequentialLinear(t *testing.T) {
	ctx := context.Background()
	data := make([]byte, 48<<20)
	comp := compressors[0].fn(t, data)
	src := &countingBlob{Blob: driver.BytesBlob(comp, nil)}
	s := NewMember(src, 0, int64(len(comp)), int64(len(data)), crc32.ChecksumIEEE(data), true, "", &Options{Spacing: 64 << 10})
	defer s.Close()
	if _, err := s.Size(ctx); err != nil {
		t.Fatal(err)
	}
	src.n.Store(0)
	p := make([]byte, 128<<10)
	for off := int64(0); off < int64(len(data)); off += int64(len(p)) {
		if _, err := s.ReadAt(ctx, p, off); err != nil && err != io.EOF {
			t.Fatal(err)
		}
	}
	if n := src.n.Load(); n > 4*int64(len(comp)) {
		t.Errorf("sequential reads read %d compressed bytes, %.1f times the stream's %d", n, float64(n)/float64(len(comp)), len(comp))
	}
}

// TestInterleavedReaders: two sequential readers taking turns on one
// stream each keep their decoder (a read takes a new decoder rather than
// one placed for the other's next read), so together they decode the
// stream about twice, not once per turn.
func TestInterleavedReaders(t *testing.T) {
	ctx := context.Background()
	data := corpus("text", 16<<20, 9)
	comp := compressors[0].fn(t, data)
	src := &countingBlob{Blob: driver.BytesBlob(comp, nil)}
	s := NewMember(src, 0, int64(len(comp)), int64(len(data)), crc32.ChecksumIEEE(data), true, "", &Options{Spacing: 256 << 10})
	defer s.Close()
	if _, err := s.Size(ctx); err != nil {
		t.Fatal(err)
	}
	src.n.Store(0)
	p := make([]byte, 128<<10)
	half := int64(len(data) / 2)
	for off := int64(0); off < half; off += int64(len(p)) {
		for _, base := range []int64{0, half} {
			if _, err := s.ReadAt(ctx, p, base+off); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if !bytes.Equal(p, data[base+off:base+off+int64(len(p))]) {
				t.Fatalf("ReadAt(%d): wrong bytes", base+off)
			}
		}
	}
	if n := src.n.Load(); n > 3*int64(len(comp)) {
		t.Errorf("two interleaved readers read %d compressed bytes, %.1f times the stream's %d", n, float64(n)/float64(len(comp)), len(comp))
	}
}
