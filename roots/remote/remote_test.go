package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/cache"
)

// fake is a Backend over one object, with knobs for misbehaviour.
type fake struct {
	data     []byte
	version  string
	requests atomic.Int64
	cut      atomic.Int64 // > 0: bodies stop after this many bytes
	whole    bool         // ignore ranges
	noSize   bool         // give no size (with whole)
	failures atomic.Int64 // answer this many requests with a retryable error
}

func (f *fake) Key(name string) string { return "fake:" + name }

func (f *fake) List(ctx context.Context, dir string) ([]fs.DirEntry, error) {
	return nil, errors.ErrUnsupported
}

func (f *fake) Get(ctx context.Context, name string, off, n int64, version string) (*Response, error) {
	f.requests.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.failures.Load() > 0 {
		f.failures.Add(-1)
		return nil, Retryable(errors.New("503"), 0)
	}
	if name != "obj" {
		return nil, fs.ErrNotExist
	}
	if version != "" && version != f.version {
		return nil, driver.ErrModified
	}
	size := int64(len(f.data))
	start, end := off, off+n
	if off < 0 {
		start, end = max(size+off, 0), size
	}
	if f.whole {
		start, end = 0, size
	}
	body := f.data[start:end]
	if c := f.cut.Load(); c > 0 && int64(len(body)) > c {
		body = body[:c]
	}
	r := &Response{Body: io.NopCloser(bytes.NewReader(body)), Start: start, Length: end - start, Size: size, Version: f.version}
	if f.noSize {
		r.Size, r.Length = -1, -1
	}
	return r, nil
}

func data(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7 / 3)
	}
	return b
}

func newTree(f Backend) *Tree {
	return NewTree(f, nil, Options{
		Cache: cache.New(cache.Config{BlockSize: 4096}),
		Retry: Retry{MaxAttempts: 4, BaseDelay: time.Microsecond, MaxDelay: time.Millisecond},
	})
}

func readAllAt(t *testing.T, b driver.Blob) []byte {
	t.Helper()
	p := make([]byte, b.Stat().Size())
	n, err := b.ReadAt(context.Background(), p, 0)
	if err != nil && err != io.EOF {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	return p[:n]
}

func TestOpenOneRequest(t *testing.T) {
	f := &fake{data: data(100000), version: "v1"}
	tr := newTree(f)
	b, err := tr.OpenBlob(context.Background(), "obj")
	if err != nil {
		t.Fatal(err)
	}
	if n := f.requests.Load(); n != 1 {
		t.Errorf("open: %d requests, want 1", n)
	}
	p := make([]byte, 1000)
	if _, err := b.ReadAt(context.Background(), p, 99000); err != nil || !bytes.Equal(p, f.data[99000:]) {
		t.Errorf("read in the suffix: %v", err)
	}
	if n := f.requests.Load(); n != 1 {
		t.Errorf("read in the suffix: %d requests, want 1", n)
	}
	if got := readAllAt(t, b); !bytes.Equal(got, f.data) {
		t.Error("content differs")
	}
	if s := tr.Stats(); s.Requests != f.requests.Load() {
		t.Errorf("Stats().Requests = %d, backend saw %d", s.Requests, f.requests.Load())
	}
}

func TestResumeShortBodies(t *testing.T) {
	f := &fake{data: data(200000), version: "v1"}
	tr := newTree(f)
	b, err := tr.OpenBlob(context.Background(), "obj")
	if err != nil {
		t.Fatal(err)
	}
	f.cut.Store(50000)
	if got := readAllAt(t, b); !bytes.Equal(got, f.data) {
		t.Error("content differs after resumed bodies")
	}
}

func TestWholeBodyUnknownSize(t *testing.T) {
	for _, noSize := range []bool{false, true} {
		t.Run(fmt.Sprint("noSize=", noSize), func(t *testing.T) {
			f := &fake{data: data(300000), version: "v1", whole: true, noSize: noSize}
			tr := newTree(f)
			b, err := tr.OpenBlob(context.Background(), "obj")
			if err != nil {
				t.Fatal(err)
			}
			if b.Stat().Size() != int64(len(f.data)) {
				t.Errorf("size %d, want %d", b.Stat().Size(), len(f.data))
			}
			if got := readAllAt(t, b); !bytes.Equal(got, f.data) {
				t.Error("content differs")
			}
			if n := f.requests.Load(); n != 1 {
				t.Errorf("%d requests, want 1: the whole body came at open", n)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	f := &fake{data: data(1000), version: "v1"}
	tr := newTree(f)
	f.failures.Store(3)
	if _, err := tr.OpenBlob(context.Background(), "obj"); err != nil {
		t.Errorf("3 failures, 4 attempts: %v", err)
	}
	f2 := &fake{data: data(1000), version: "v1"}
	f2.failures.Store(4)
	if _, err := newTree(f2).OpenBlob(context.Background(), "obj"); err == nil || f2.requests.Load() != 4 {
		t.Errorf("4 failures, 4 attempts: err %v after %d requests", err, f2.requests.Load())
	}
}

func TestModified(t *testing.T) {
	f := &fake{data: data(100000), version: "v1"}
	tr := newTree(f)
	b, err := tr.OpenBlob(context.Background(), "obj")
	if err != nil {
		t.Fatal(err)
	}
	f.version = "v2"
	if _, err := b.ReadAt(context.Background(), make([]byte, 10), 0); !errors.Is(err, driver.ErrModified) {
		t.Errorf("ReadAt after a change: %v, want ErrModified", err)
	}
}

func TestRetryDoCancel(t *testing.T) {
	// The backoff is an hour: Do returns after one attempt only if the
	// cancellation ends its wait. The timeout only keeps a regression from
	// hanging the test.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	attempted := make(chan struct{}, 100)
	done := make(chan error, 1)
	n := 0
	go func() {
		done <- Retry{MaxAttempts: 100, BaseDelay: time.Hour}.Do(ctx, func() error {
			n++
			attempted <- struct{}{}
			return Retryable(errors.New("x"), 0)
		})
	}()
	<-attempted
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || n != 1 {
			t.Errorf("Do cancelled during its backoff = %v after %d attempts, want context.Canceled after 1", err, n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Do did not return after its context was cancelled during its backoff")
	}
	n = 0
	err := Retry{MaxAttempts: 3, BaseDelay: time.Microsecond}.Do(context.Background(), func() error { n++; return Retryable(errors.New("x"), 0) })
	if err == nil || n != 3 {
		t.Errorf("Do: %d attempts, %v", n, err)
	}
	n = 0
	Retry{MaxAttempts: 3}.Do(context.Background(), func() error { n++; return errors.New("final") })
	if n != 1 {
		t.Errorf("Do retried a final error %d times", n)
	}
}

func TestNotExist(t *testing.T) {
	tr := newTree(&fake{data: data(10)})
	if _, err := tr.OpenBlob(context.Background(), "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenBlob(missing) = %v", err)
	}
	if _, err := tr.Stat(context.Background(), "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing) = %v", err)
	}
}

// A blob's fingerprint is the version and size seen at open, so an object
// replaced by one of the same size gets another; with no version it is ""
// (the engine then knows the blob by its size and time).
func TestFingerprint(t *testing.T) {
	ctx := context.Background()
	f := &fake{data: []byte("0123456789"), version: `"v1"`}
	fp := func() string {
		t.Helper()
		b, err := NewTree(f, nil, Options{Cache: cache.New(cache.Config{})}).OpenBlob(ctx, "obj")
		if err != nil {
			t.Fatal(err)
		}
		return b.(driver.Fingerprinter).Fingerprint()
	}
	if got, want := fp(), "\"v1\"\x0010"; got != want {
		t.Errorf("Fingerprint() = %q, want %q", got, want)
	}
	f.data, f.version = []byte("9876543210"), `"v2"`
	if got, want := fp(), "\"v2\"\x0010"; got != want {
		t.Errorf("after the replacement, Fingerprint() = %q, want %q", got, want)
	}
	f.version = ""
	if got := fp(); got != "" {
		t.Errorf("with no version, Fingerprint() = %q, want \"\"", got)
	}
}

// panicFake is a fake whose first Get panics, as a backend with a bug.
type panicFake struct {
	*fake
	panicked atomic.Bool
}

func (f *panicFake) Get(ctx context.Context, name string, off, n int64, version string) (*Response, error) {
	if f.panicked.CompareAndSwap(false, true) {
		panic("backend bug")
	}
	return f.fake.Get(ctx, name, off, n, version)
}

// A backend that panics while it opens an object leaves no open of that
// object waiting for it: a later open reads the object again. (The
// deadline only keeps a regression from hanging the test.)
func TestOpenAfterPanic(t *testing.T) {
	f := &panicFake{fake: &fake{data: data(10000), version: "v1"}}
	tr := newTree(f)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the backend's panic did not reach the open")
			}
		}()
		tr.OpenBlob(context.Background(), "obj")
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := tr.OpenBlob(ctx, "obj")
	if err != nil {
		t.Fatalf("open after a panicking open = %v, want the object", err)
	}
	if got := readAllAt(t, b); !bytes.Equal(got, f.data) {
		t.Error("content differs")
	}
}
