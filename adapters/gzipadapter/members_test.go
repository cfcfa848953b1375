package gzipadapter_test

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/adapters/gzipadapter"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// emptyMember is the empty gzip member of Go's TestCVE202230631.
var emptyMember = []byte{0x1f, 0x8b, 0x08, 0x00, 0xa7, 0x8f, 0x43, 0x62, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}

// manyMembers returns n empty gzip members followed by a member holding
// tail, and the same gzipped once more.
func manyMembers(n int, tail []byte) (flat, nested []byte) {
	flat = append(bytes.Repeat(emptyMember, n), gzipBytes(tail)...)
	return flat, gzipBytes(flat)
}

// BenchmarkManyMembersNested reads 1,000,000 empty gzip members gzipped
// once more (the CVE-2022-30631 input, a quarter of it) through
// |gzip:|gzip:, from a fresh cache each time.
func BenchmarkManyMembersNested(b *testing.B) {
	const n = 1_000_000
	_, nested := manyMembers(n, []byte("end\n"))
	b.SetBytes(int64(len(nested)))
	b.ReportAllocs()
	for b.Loop() {
		o := &vfs.Options{Cache: vfs.NewCache(64 << 20)}
		if err := memroot.For(o.Cache).WriteFile("m.gz.gz", nested); err != nil {
			b.Fatal(err)
		}
		f, err := vfs.Open(context.Background(), "memory:m.gz.gz|gzip:|gzip:", o)
		if err != nil {
			b.Fatal(err)
		}
		got, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(got) != "end\n" {
			b.Fatalf("read %q, %v", got, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "members/s")
}

// countingBlob counts the ReadAt calls and bytes of a blob, and may fail
// or cancel after some calls.
type countingBlob struct {
	driver.Blob
	calls, bytes atomic.Int64
	failAfter    int64              // fail with failErr after this many calls, if > 0
	failErr      error              // the error of failing calls
	cancel       context.CancelFunc // called instead, when set
}

func (c *countingBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	k := c.calls.Add(1)
	if c.failAfter > 0 && k > c.failAfter {
		if c.cancel == nil {
			return 0, c.failErr
		}
		c.cancel()
	}
	n, err := c.Blob.ReadAt(ctx, p, off)
	c.bytes.Add(int64(n))
	return n, err
}

// openBlob opens gz with the adapter, with a private index.
func openBlob(t testing.TB, src driver.Blob) driver.Blob {
	t.Helper()
	loc, err := gzipadapter.Open(context.Background(), src, vfs.SubURL{}, vfs.NewEnv("", "gzip", nil))
	if err != nil {
		t.Fatal(err)
	}
	return loc.Blob
}

func bytesBlob(name string, b []byte) driver.Blob {
	return driver.BytesBlob(b, &driver.FileInfo{FName: name, FSize: int64(len(b))})
}

func readBlob(ctx context.Context, b driver.Blob) ([]byte, error) {
	return io.ReadAll(io.NewSectionReader(driver.ReaderAt(ctx, b), 0, 1<<40))
}

// TestManyMembersNested reads 100,000 empty members and a last one with
// data, gzipped once more, and checks that the inner decoder reads the
// outer stream once, forward: its member trailers and headers come from
// the decoder's own buffer, not from reads behind it that would make the
// outer stream decode again from a checkpoint. The index holds a point
// per spacing of input, not per member, and the allocations do not grow
// with the members.
func TestManyMembersNested(t *testing.T) {
	const n = 100_000
	flat, nested := manyMembers(n, []byte("the end\n"))
	outer := &countingBlob{Blob: openBlob(t, bytesBlob("m.gz.gz", nested))}
	inner := openBlob(t, outer)
	if c := outer.calls.Load(); c > 2 {
		t.Errorf("opening the inner gzip read the outer stream %d times; want at most 2 (the first header)", c)
	}
	outer.calls.Store(0)
	outer.bytes.Store(0)
	got, err := readBlob(context.Background(), inner)
	if err != nil || string(got) != "the end\n" {
		t.Fatalf("read %q, %v; want %q", got, err, "the end\n")
	}
	// One forward read of the outer output in 64 KiB steps, plus the
	// verification reads of a few checkpoint candidates.
	if b := outer.bytes.Load(); b > int64(len(flat))+256<<10 {
		t.Errorf("reading %d members read %d bytes of the %d-byte outer output; want one pass", n, b, len(flat))
	}
	if c := outer.calls.Load(); c > int64(len(flat))/(64<<10)+16 {
		t.Errorf("reading %d members made %d reads of the outer output; want one per 64 KiB", n, c)
	}
	// 2 MB of input at the default 1 MiB spacing: the first point and
	// two member starts.
	if pts, _ := gzipadapter.BlobIndexStats(inner); pts > 3 {
		t.Errorf("the index of %d members has %d points; want one per MiB of input", n, pts)
	}

	allocs := testing.AllocsPerRun(2, func() {
		b := openBlob(t, bytesBlob("m.gz", flat))
		if got, err := readBlob(context.Background(), b); err != nil || string(got) != "the end\n" {
			t.Fatalf("read %q, %v", got, err)
		}
	})
	if allocs > 2000 {
		t.Errorf("reading %d members made %.0f allocations; want a bound independent of the members", n, allocs)
	}
}

// TestManyMembersRandomReads reads at random offsets of a stream whose
// members with data lie between runs of empty ones, with the smallest
// spacing: the index has a point every 64 KiB of input or output, so
// reads resume at checkpoints inside members whose start it does not
// hold, and across runs of empty members.
func TestManyMembersRandomReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var gz []byte
	for range 40 {
		gz = append(gz, bytes.Repeat(emptyMember, rng.IntN(5000))...)
		b := make([]byte, rng.IntN(300<<10))
		for i := range b {
			b[i] = byte('a' + rng.IntN(8))
		}
		gz = append(gz, gzipBytes(b)...)
	}
	want := oracle(t, gz)
	o := &vfs.Options{Schemes: map[string]any{"gzip": &gzipadapter.Options{Spacing: 64 << 10}}}
	loc, err := gzipadapter.Open(context.Background(), bytesBlob("r.gz", gz), vfs.SubURL{}, vfs.NewEnv("", "gzip", o))
	if err != nil {
		t.Fatal(err)
	}
	b := loc.Blob
	if n := b.Stat().Size(); n != int64(len(want)) {
		t.Fatalf("size %d; want %d", n, len(want))
	}
	pts, _ := gzipadapter.BlobIndexStats(b)
	if max := (len(gz)+len(want))/(64<<10) + 1; pts > max || pts < len(want)/(128<<10) {
		t.Errorf("%d points for %d bytes of input and %d of output; want about one per 64 KiB, at most %d", pts, len(gz), len(want), max)
	}
	for range 200 {
		off := rng.IntN(len(want))
		p := make([]byte, min(rng.IntN(8<<10)+1, len(want)-off))
		if n, err := b.ReadAt(context.Background(), p, int64(off)); n != len(p) || (err != nil && err != io.EOF) {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v", len(p), off, n, err)
		}
		if !bytes.Equal(p, want[off:off+len(p)]) {
			t.Fatalf("ReadAt(%d bytes at %d) differs", len(p), off)
		}
	}
}
