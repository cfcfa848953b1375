package inflate

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// rawDeflate returns n bytes of text and their raw DEFLATE stream.
func rawDeflate(t testing.TB, n int) ([]byte, []byte) {
	var plain bytes.Buffer
	for i := 0; plain.Len() < n; i++ {
		fmt.Fprintf(&plain, "line %d of %d, %x\n", i, i*i%7919, i*2654435761)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain.Bytes()[:n])
	zw.Close()
	// The raw stream of a gzip member with no optional fields starts at 10
	// and ends 8 bytes before the end.
	return plain.Bytes()[:n], z.Bytes()[10 : z.Len()-8]
}

// complete builds the whole index of a stream and returns its encoding.
func complete(t testing.TB, plain, raw []byte, c *vfs.Cache) []byte {
	src := driver.BytesBlob(raw, nil)
	s := NewMember(src, 0, int64(len(raw)), int64(len(plain)), 0, false, "k", &Options{Spacing: 64 << 10, Cache: c})
	got := make([]byte, len(plain))
	if _, err := s.ReadAt(context.Background(), got, 0); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if n, err := s.Size(context.Background()); err != nil || n != int64(len(plain)) {
		t.Fatal(n, err)
	}
	if !s.Index().Complete() {
		t.Fatal("index not complete after reading the stream")
	}
	return s.Index().Encode()
}

func TestPersistRoundTrip(t *testing.T) {
	plain, raw := rawDeflate(t, 1<<20)
	b := complete(t, plain, raw, vfs.NewCache(0))
	c := vfs.NewCache(0)
	open := func(src driver.Blob) *Stream {
		return NewMember(src, 0, int64(len(raw)), int64(len(plain)), 0, false, "k", &Options{Spacing: 64 << 10, Cache: c})
	}
	if _, err := open(driver.BytesBlob(raw, nil)).Index().Load(b, 0, int64(len(raw)), -1); err != nil {
		t.Fatal(err)
	}
	if !Learned(c, "k") {
		t.Fatal("loaded index not cached")
	}
	// A read near the end decodes from the last checkpoint: fewer input
	// bytes than the whole stream.
	cb := &countBlob{Blob: driver.BytesBlob(raw, nil)}
	s := open(cb)
	if pts, _ := s.Index().Stats(); pts < 10 {
		t.Fatalf("restored index has %d points", pts)
	}
	p := make([]byte, 100)
	off := int64(len(plain) - 200)
	if _, err := s.ReadAt(context.Background(), p, off); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p, plain[off:off+100]) {
		t.Fatal("wrong bytes after restore")
	}
	if cb.n > int64(len(raw))/4 {
		t.Errorf("read %d of %d input bytes after restore", cb.n, len(raw))
	}
	again := s.Index().Encode()
	if !bytes.Equal(again, b) {
		t.Error("restored index encodes differently")
	}
}

type countBlob struct {
	driver.Blob
	n int64
}

func (b *countBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	n, err := b.Blob.ReadAt(ctx, p, off)
	b.n += int64(n)
	return n, err
}

// fresh returns an empty index, of a stream whose data starts at first,
// in a cache of its own.
func fresh(first int64) *Index { return cached(vfs.NewCache(0), "k", first) }

func TestPersistBad(t *testing.T) {
	plain, raw := rawDeflate(t, 256<<10)
	b := complete(t, plain, raw, vfs.NewCache(0))
	for n := range len(b) {
		if n%97 != 0 && n > 64 {
			continue
		}
		if _, err := fresh(0).Load(b[:n], 0, int64(len(raw)), -1); !errors.Is(err, driver.ErrCorrupt) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
	if _, err := fresh(0).Load(b, 0, 100, -1); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("points past the input: %v", err)
	}
	if _, err := fresh(5).Load(b, 5, int64(len(raw)), -1); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("another start: %v", err)
	}
}

// FuzzLoad loads arbitrary bytes as a kept index and reads the stream: no
// panic.
func FuzzLoad(f *testing.F) {
	plain, raw := rawDeflate(f, 256<<10)
	f.Add(complete(f, plain, raw, vfs.NewCache(0)))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := NewMember(driver.BytesBlob(raw, nil), 0, int64(len(raw)), int64(len(plain)), 0, false, "k", &Options{Spacing: 64 << 10, Cache: vfs.NewCache(0)})
		if _, err := s.Index().Load(b, 0, int64(len(raw)), -1); err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		p := make([]byte, 1000)
		for _, off := range []int64{0, 100000, int64(len(plain)) - 500} {
			s.ReadAt(context.Background(), p, off)
		}
	})
}

// TestIndexLoad: a stream opened before its kept index was read takes
// the index in when it has learned less, and then decodes from its last
// checkpoint; a complete index keeps what it learned; a kept index of
// another size than the stream is said to have is corrupt (the gzip
// adapter's TestKeptHeadWrongSize checks a pass to the end).
func TestIndexLoad(t *testing.T) {
	plain, raw := rawDeflate(t, 1<<20)
	b := complete(t, plain, raw, vfs.NewCache(0))
	c := vfs.NewCache(0)
	cb := &countBlob{Blob: driver.BytesBlob(raw, nil)}
	s := NewMember(cb, 0, int64(len(raw)), int64(len(plain)), 0, false, "k", &Options{Spacing: 64 << 10, Cache: c})
	if _, err := s.Index().Load(b[:len(b)-1], 0, int64(len(raw)), -1); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("a truncated index: %v", err)
	}
	if took, err := s.Index().Load(b, 0, int64(len(raw)), -1); err != nil || !took {
		t.Fatalf("Load = %v, %v", took, err)
	}
	if pts, _ := s.Index().Stats(); pts < 10 || !s.Index().Complete() {
		t.Fatalf("loaded index: %d points, complete %v", pts, s.Index().Complete())
	}
	p := make([]byte, 100)
	off := int64(len(plain) - 200)
	if _, err := s.ReadAt(context.Background(), p, off); err != nil || !bytes.Equal(p, plain[off:off+100]) {
		t.Fatalf("ReadAt near the end: %v", err)
	}
	if n := cb.n; n > int64(len(raw))/4 {
		t.Errorf("a read near the end read %d of %d input bytes", n, len(raw))
	}
	// An index that learned a few points takes the kept one, which
	// reaches further; a complete one keeps its own.
	mk := func(key string) *Stream {
		return NewMember(driver.BytesBlob(raw, nil), 0, int64(len(raw)), int64(len(plain)), 0, false, key, &Options{Spacing: 64 << 10, Cache: c})
	}
	s2 := mk("k2")
	// A stream read part of the way learns a few points (a ReadAt would
	// decode on to the member's end, to check it).
	rc, err := s2.Stream(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, rc, 300<<10); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if s2.Index().Complete() {
		t.Fatal("a stream read a part of the way completed the index")
	}
	if took, err := s2.Index().Load(b, 0, int64(len(raw)), -1); err != nil || !took {
		t.Errorf("an index of a few points: Load = %v, %v", took, err)
	}
	s3 := mk("k3")
	complete := make([]byte, len(plain))
	if _, err := s3.ReadAt(context.Background(), complete, 0); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if _, err := s3.Size(context.Background()); err != nil {
		t.Fatal(err)
	}
	if took, err := s3.Index().Load(b, 0, int64(len(raw)), -1); err != nil || took {
		t.Errorf("a complete index: Load = %v, %v", took, err)
	}
	s4 := mk("k4")
	if _, err := s4.Index().Load(b, 0, int64(len(raw)), int64(len(plain))+1); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("a kept index of another size than expected: %v", err)
	}
}
