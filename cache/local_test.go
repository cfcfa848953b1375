package cache

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// localSource serves every range as a LocalReader: bytes it already holds.
type localSource struct{ data []byte }

type localReader struct{ *bytes.Reader }

func (localReader) Local()       {}
func (localReader) Close() error { return nil }

func (s *localSource) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	return localReader{bytes.NewReader(s.data[off : off+n])}, nil
}

// The blocks and spans a source serves from what it holds (a
// LocalReader) are misses, not requests nor bytes fetched.
func TestLocalReaderNotCounted(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 64*kib)
	src := &localSource{data: data}
	b := New(Config{BlockSize: 64 * kib}).Blob(src, "obj", &driver.FileInfo{FName: "obj", FSize: int64(len(data))}, nil)
	ctx := context.Background()
	p := make([]byte, 100*kib)
	if _, err := b.ReadAt(ctx, p, 10*kib); err != nil { // two blocks
		t.Fatal(err)
	}
	if !bytes.Equal(p, data[10*kib:110*kib]) {
		t.Fatal("wrong bytes")
	}
	if err := b.Prefetch(ctx, 500*kib, 10*kib); err != nil { // a span
		t.Fatal(err)
	}
	c := b.Stats().Snapshot()
	if c.Requests != 0 || c.Bytes != 0 || c.Misses < 3 {
		t.Errorf("stats = %+v, want no requests, no bytes, 3 or more misses", c)
	}
}
