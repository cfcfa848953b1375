package blobread

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// streamed is a blob that counts its ReadAt calls and streams its bytes
// from 0, ending with err after cut bytes when err is set.
type streamed struct {
	driver.Blob
	data    []byte
	readAts atomic.Int64
	streams atomic.Int64
	cut     int
	err     error
	closed  chan struct{}
}

func (s *streamed) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	s.readAts.Add(1)
	return s.Blob.ReadAt(ctx, p, off)
}

func (s *streamed) Stream(_ context.Context, off int64) (io.ReadCloser, error) {
	s.streams.Add(1)
	var r io.Reader = bytes.NewReader(s.data[off:])
	if s.err != nil {
		r = io.MultiReader(bytes.NewReader(s.data[off:s.cut]), errReader{s.err})
	}
	return closer{r, s.closed}, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type closer struct {
	io.Reader
	closed chan struct{}
}

func (c closer) Close() error {
	if c.closed != nil {
		close(c.closed)
	}
	return nil
}

func newStreamed(n int) *streamed {
	data := []byte(strings.Repeat("0123456789", n/10))
	return &streamed{Blob: driver.BytesBlob(data, nil), data: data, closed: make(chan struct{})}
}

// TestForward reads forward through one stream, skipping bytes, and
// backward through the blob's ReadAt; Close ends the stream's goroutine.
func TestForward(t *testing.T) {
	s := newStreamed(1 << 20)
	f := NewForward(context.Background(), s, s)
	buf := make([]byte, 100)
	for _, off := range []int64{0, 100, 5000, 700003} {
		n, err := f.ReadAt(buf, off)
		if n != len(buf) || err != nil || !bytes.Equal(buf, s.data[off:off+100]) {
			t.Fatalf("ReadAt(%d) = %d, %v, %q; want %q", off, n, err, buf[:n], s.data[off:off+100])
		}
	}
	if s.streams.Load() != 1 || s.readAts.Load() != 0 {
		t.Fatalf("forward reads: %d streams, %d ReadAt calls; want 1 and 0", s.streams.Load(), s.readAts.Load())
	}
	// Backward: the blob's ReadAt.
	if n, err := f.ReadAt(buf, 10); n != len(buf) || err != nil || !bytes.Equal(buf, s.data[10:110]) {
		t.Fatalf("ReadAt(10) after 700103 = %d, %v", n, err)
	}
	if s.readAts.Load() != 1 {
		t.Fatalf("a backward read made %d ReadAt calls, want 1", s.readAts.Load())
	}
	// The end: a short read, then io.EOF.
	end := int64(len(s.data))
	if n, err := f.ReadAt(buf, end-30); n != 30 || err != io.EOF {
		t.Fatalf("ReadAt(end-30) = %d, %v; want 30, io.EOF", n, err)
	}
	if n, err := f.ReadAt(buf, end); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt(end) = %d, %v; want 0, io.EOF", n, err)
	}
	f.Close()
	<-s.closed
}

// TestForwardError: the stream's error reaches the read that needs the
// bytes after it, and later reads go to the blob's ReadAt; Close stops a
// stream that was not read to its end.
func TestForwardError(t *testing.T) {
	s := newStreamed(1 << 20)
	s.cut, s.err = 1000, driver.Corruptf("bad data")
	f := NewForward(context.Background(), s, s)
	buf := make([]byte, 100)
	if _, err := f.ReadAt(buf, 950); !errors.Is(err, driver.ErrCorrupt) {
		t.Fatalf("ReadAt across the stream's error: %v, want ErrCorrupt", err)
	}
	if n, err := f.ReadAt(buf, 2000); n != 100 || err != nil || s.readAts.Load() != 1 {
		t.Fatalf("ReadAt after the error = %d, %v, %d ReadAt calls; want the blob's bytes through its ReadAt", n, err, s.readAts.Load())
	}
	f.Close()
	<-s.closed

	s = newStreamed(1 << 20)
	f = NewForward(context.Background(), s, s)
	if _, err := f.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	<-s.closed // the goroutine saw the pipe closed and closed the stream
	if _, err := f.ReadAt(buf, 0); err == nil {
		t.Fatal("ReadAt after Close succeeded")
	}

	// Closed before any read: nothing starts.
	s = newStreamed(1 << 20)
	f = NewForward(context.Background(), s, s)
	f.Close()
	if _, err := f.ReadAt(buf, 0); err == nil || s.streams.Load() != 0 {
		t.Fatalf("ReadAt after Close: %v, %d streams started; want an error and none", err, s.streams.Load())
	}
}
