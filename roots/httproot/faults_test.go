package httproot_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

// fastOpts returns options with a fresh cache of small blocks, quick
// retries and a short timeout.
func fastOpts(attempts int) *vfs.Options {
	o := &httproot.Options{Timeout: 200 * time.Millisecond}
	o.Remote.Cache = cache.New(cache.Config{BlockSize: 16 << 10, MaxReadahead: 64 << 10})
	o.Remote.Retry = remote.Retry{MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
	return &vfs.Options{Schemes: map[string]any{"http": o}}
}

func openFile(t *testing.T, url string, o *vfs.Options) *vfs.File {
	t.Helper()
	f, err := vfs.Open(context.Background(), url, o)
	if err != nil {
		t.Fatalf("OpenFile(%q) error = %v", url, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readAll(t *testing.T, f *vfs.File) []byte {
	t.Helper()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	return b
}

func TestFaults(t *testing.T) {
	data := fstest.RandomBytes(200<<10, 9)
	cases := []struct {
		name  string
		fault fstest.Fault
	}{
		{"503", fstest.Fault{Kind: fstest.FaultStatus, OnlyRange: true}},
		{"500 twice", fstest.Fault{Kind: fstest.FaultStatus, Status: 500, Times: 2}},
		{"429", fstest.Fault{Kind: fstest.FaultStatus, Status: 429, RetryAfter: "0"}},
		{"short body", fstest.Fault{Kind: fstest.FaultShortBody, Cut: 1000, Times: 3}},
		{"short body empty", fstest.Fault{Kind: fstest.FaultShortBody, Cut: 0}},
		{"reset", fstest.Fault{Kind: fstest.FaultReset, Times: 2}},
		{"delay", fstest.Fault{Kind: fstest.FaultDelay, Delay: 2 * time.Second}},
		{"ignore range", fstest.Fault{Kind: fstest.FaultIgnoreRange, Times: -1}},
		{"ignore range at open", fstest.Fault{Kind: fstest.FaultIgnoreRange}},
		{"no length", fstest.Fault{Kind: fstest.FaultNoLength, Times: -1}},
		{"ignore range, no length", fstest.Fault{Kind: fstest.FaultIgnoreRange, Times: -1}},
		{"gzip", fstest.Fault{Kind: fstest.FaultGzip, Times: -1}},
		{"gzip at open", fstest.Fault{Kind: fstest.FaultGzip}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fstest.NewHTTPServer(t, map[string][]byte{"f.bin": data})
			srv.Inject(tc.fault)
			if tc.name == "ignore range, no length" {
				srv.Inject(fstest.Fault{Kind: fstest.FaultNoLength, Times: -1})
			}
			f := openFile(t, srv.URL()+"/f.bin", fastOpts(5))
			if got := readAll(t, f); !bytes.Equal(got, data) {
				t.Fatalf("read %d bytes, want the %d bytes served (content differs)\n%s", len(got), len(data), srv.LogString())
			}
			// And at random offsets.
			r := rand.New(rand.NewPCG(1, 2))
			for range 20 {
				off := r.IntN(len(data))
				p := make([]byte, r.IntN(30000))
				n, err := f.ReadAt(p, int64(off))
				if err != nil && err != io.EOF || !bytes.Equal(p[:n], data[off:off+n]) || n < len(p) && off+n != len(data) {
					t.Fatalf("ReadAt(%d, %d) = %d, %v: wrong", off, len(p), n, err)
				}
			}
		})
	}
}

func TestNonRangingRemembered(t *testing.T) {
	data := fstest.RandomBytes(100<<10, 3)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"f.bin": data})
	srv.Inject(fstest.Fault{Kind: fstest.FaultIgnoreRange, Times: -1})
	f := openFile(t, srv.URL()+"/f.bin", fastOpts(5))
	if httproot.Ranging(nil, srv.URL()) {
		t.Errorf("Ranging(%q) = true after a 200 to a range request", srv.URL())
	}
	// The whole body came at open: reading it costs nothing more.
	srv.Reset()
	if got := readAll(t, f); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("reading a file sent whole at open: %d requests, want 0\n%s", n, srv.LogString())
	}
}

func TestStatusErrors(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{"f": []byte("x"), "empty": nil})
	ctx := context.Background()
	for _, tc := range []struct {
		status int
		want   error
	}{{404, fs.ErrNotExist}, {410, fs.ErrNotExist}, {403, fs.ErrPermission}, {401, fs.ErrPermission}} {
		srv.Inject(fstest.Fault{Kind: fstest.FaultStatus, Status: tc.status})
		_, err := vfs.Open(ctx, srv.URL()+"/f", fastOpts(3))
		if !errors.Is(err, tc.want) {
			t.Errorf("status %d: OpenFile error = %v, want %v", tc.status, err, tc.want)
		}
	}
	if _, err := vfs.Open(ctx, srv.URL()+"/missing", fastOpts(3)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFile(missing) error = %v, want fs.ErrNotExist", err)
	}
	f := openFile(t, srv.URL()+"/empty", fastOpts(3))
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Errorf("empty file: size %d, want 0", fi.Size())
	}
	if got := readAll(t, f); len(got) != 0 {
		t.Errorf("empty file read %q", got)
	}
}

func TestRetryBound(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{"f": []byte("x")})
	srv.Inject(fstest.Fault{Kind: fstest.FaultStatus, Times: -1})
	_, err := vfs.Open(context.Background(), srv.URL()+"/f", fastOpts(3))
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("OpenFile error = %v, want a 503", err)
	}
	if n := srv.Requests(); n != 3 {
		t.Errorf("%d requests, want MaxAttempts = 3\n%s", n, srv.LogString())
	}

	// Short bodies forever: the resumed requests share the bound.
	data := fstest.RandomBytes(200<<10, 4)
	srv2 := fstest.NewHTTPServer(t, map[string][]byte{"f": data})
	f := openFile(t, srv2.URL()+"/f", fastOpts(4))
	srv2.Reset()
	srv2.Inject(fstest.Fault{Kind: fstest.FaultShortBody, Cut: 10, Times: -1})
	_, err = f.ReadAt(make([]byte, 100), 0)
	if err == nil {
		t.Fatal("ReadAt with every body cut: no error")
	}
	if n := srv2.Requests(); n != 4 {
		t.Errorf("ReadAt with every body cut: %d requests, want 4\n%s", n, srv2.LogString())
	}
}

// TestRetryAfter checks that a 429's Retry-After sets the wait before the
// next attempt: the backoff is an hour, the Retry-After one second, so the
// open succeeds on its second request only if the header was honoured. The
// context's deadline only keeps a regression from hanging the test.
func TestRetryAfter(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{"f": []byte("x")})
	srv.Inject(fstest.Fault{Kind: fstest.FaultStatus, Status: 429, RetryAfter: "1"})
	o := fastOpts(3)
	o.Schemes["http"].(*httproot.Options).Remote.Retry = remote.Retry{MaxAttempts: 3, BaseDelay: time.Hour, MaxDelay: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := vfs.Open(ctx, srv.URL()+"/f", o)
	if err != nil {
		t.Fatalf("OpenFile after a 429 with Retry-After: 1 (backoff 1h) error = %v, want nil: the Retry-After was not honoured\n%s", err, srv.LogString())
	}
	f.Close()
	if n := srv.Requests(); n != 2 {
		t.Errorf("OpenFile after one 429: %d requests, want 2\n%s", n, srv.LogString())
	}
}

// TestCancelStopsRetries cancels an open while it waits between attempts,
// then while the server stalls its answer. The backoff and the stall are an
// hour, so the open returns context.Canceled after one request only if it
// stops at the cancellation; the timeout only keeps a regression from
// hanging the test.
func TestCancelStopsRetries(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{"f": []byte("x")})
	o := fastOpts(100)
	o.Schemes["http"].(*httproot.Options).Remote.Retry = remote.Retry{MaxAttempts: 100, BaseDelay: time.Hour, MaxDelay: time.Hour}
	o.Schemes["http"].(*httproot.Options).Timeout = -1
	for _, tc := range []struct {
		name  string
		fault fstest.Fault
	}{
		{"backoff", fstest.Fault{Kind: fstest.FaultStatus, Times: -1}},
		{"stalled answer", fstest.Fault{Kind: fstest.FaultDelay, Delay: time.Hour, Times: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.ClearFaults()
			srv.Reset()
			srv.Inject(tc.fault)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				f, err := vfs.Open(ctx, srv.URL()+"/f", o)
				if err == nil {
					f.Close()
				}
				done <- err
			}()
			// Cancel once the first request has reached the server.
			for srv.Requests() == 0 {
				select {
				case err := <-done:
					t.Fatalf("OpenFile returned %v before sending a request", err)
				case <-time.After(time.Millisecond):
				}
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("OpenFile error = %v, want context.Canceled", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("OpenFile did not return after its context was cancelled\n%s", srv.LogString())
			}
			if n := srv.Requests(); n != 1 {
				t.Errorf("cancelled OpenFile: %d requests, want 1\n%s", n, srv.LogString())
			}
		})
	}
}

func TestModified(t *testing.T) {
	v1 := fstest.RandomBytes(300<<10, 1)
	v2 := fstest.RandomBytes(300<<10, 2)
	v3 := fstest.RandomBytes(200<<10, 3) // another size
	for _, tc := range []struct {
		name  string
		style fstest.ETagStyle
		next  []byte
	}{
		{"strong etag", fstest.StrongETag, v2},
		{"weak etag", fstest.WeakETag, v2},
		{"last-modified", fstest.NoETag, v2},
		{"no validator, new size", fstest.NoValidator, v3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fstest.NewHTTPServer(t, map[string][]byte{"f": v1})
			srv.SetETagStyle(tc.style)
			f := openFile(t, srv.URL()+"/f", fastOpts(3))
			p := make([]byte, 20000)
			if _, err := f.ReadAt(p, 0); err != nil || !bytes.Equal(p, v1[:len(p)]) {
				t.Fatalf("ReadAt before the change = %v", err)
			}
			srv.Set("f", tc.next)
			_, err := f.ReadAt(p, 100<<10)
			if !errors.Is(err, driver.ErrModified) {
				t.Fatalf("ReadAt after the change error = %v, want driver.ErrModified\n%s", err, srv.LogString())
			}
			// Cached bytes of the old version stay readable; they are
			// never mixed with new ones.
			if _, err := f.ReadAt(p, 0); err != nil || !bytes.Equal(p, v1[:len(p)]) {
				t.Errorf("ReadAt of cached old bytes = %v", err)
			}
			// A new open sees the new version.
			g := openFile(t, srv.URL()+"/f", fastOpts(3))
			if got := readAll(t, g); !bytes.Equal(got, tc.next) {
				t.Errorf("reopened: content differs")
			}
		})
	}
}

func TestModifiedZipMember(t *testing.T) {
	files := map[string][]byte{"a.bin": fstest.RandomBytes(500<<10, 5), "b.txt": textBytes(300<<10, 6)}
	files2 := map[string][]byte{"a.bin": fstest.RandomBytes(500<<10, 7), "b.txt": textBytes(300<<10, 8)}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"x.zip": fstest.ZipBytes(files, zip.Store)})
	fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/x.zip|zip:", fastOpts(3))
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	srv.Set("x.zip", fstest.ZipBytes(files2, zip.Store))
	for _, name := range []string{"a.bin", "b.txt"} {
		if _, err := fs.ReadFile(fsys, name); !errors.Is(err, driver.ErrModified) {
			t.Errorf("ReadFile(%q) after the archive changed: error = %v, want driver.ErrModified", name, err)
		}
	}
}

// TestModifiedMidRead changes the object while a body is being sent: the
// resumed request must fail, not mix the versions.
func TestModifiedMidRead(t *testing.T) {
	v1 := fstest.RandomBytes(300<<10, 1)
	v2 := fstest.RandomBytes(300<<10, 2)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"f": v1})
	f := openFile(t, srv.URL()+"/f", fastOpts(5))
	srv.Inject(fstest.Fault{Kind: fstest.FaultShortBody, Cut: 5000, OnlyRange: true})
	srv.Inject(fstest.Fault{Kind: fstest.FaultChange, Data: v2, Times: 2, OnlyRange: true})
	p := make([]byte, 100<<10)
	n, err := f.ReadAt(p, 0)
	if !errors.Is(err, driver.ErrModified) {
		t.Fatalf("ReadAt = %d, %v; want driver.ErrModified\n%s", n, err, srv.LogString())
	}
}

// TestFaultLoop reads random ranges while faults of every kind are
// injected at random, and compares every byte with the truth.
func TestFaultLoop(t *testing.T) {
	files := map[string][]byte{"a.bin": fstest.RandomBytes(400<<10, 11), "b.txt": textBytes(300<<10, 12), "c.txt": []byte("small")}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"x.zip": fstest.ZipBytesFunc(files, func(n string) uint16 {
		if n == "a.bin" {
			return zip.Store
		}
		return zip.Deflate
	})})
	r := rand.New(rand.NewPCG(7, 7))
	kinds := []fstest.Fault{
		{Kind: fstest.FaultStatus},
		{Kind: fstest.FaultStatus, Status: 429, RetryAfter: "0"},
		{Kind: fstest.FaultShortBody, Cut: 777},
		{Kind: fstest.FaultReset},
		{Kind: fstest.FaultDelay, Delay: time.Second},
		{Kind: fstest.FaultIgnoreRange},
		{Kind: fstest.FaultNoLength},
		{Kind: fstest.FaultGzip},
	}
	for round := range 30 {
		srv.ClearFaults()
		for range 1 + r.IntN(2) {
			srv.Inject(kinds[r.IntN(len(kinds))])
		}
		fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/x.zip|zip:", fastOpts(6))
		if err != nil {
			t.Fatalf("round %d: OpenFS error = %v\n%s", round, err, srv.LogString())
		}
		for name, want := range files {
			f, err := fsys.Open(name)
			if err != nil {
				t.Fatalf("round %d: Open(%q) error = %v", round, name, err)
			}
			ra := f.(io.ReaderAt)
			for range 5 {
				if r.IntN(3) == 0 {
					srv.Inject(kinds[r.IntN(len(kinds))])
				}
				off := r.IntN(len(want))
				p := make([]byte, r.IntN(60000))
				n, err := ra.ReadAt(p, int64(off))
				if !bytes.Equal(p[:n], want[off:off+n]) {
					t.Fatalf("round %d: ReadAt(%q, %d, %d) returned wrong bytes", round, name, off, len(p))
				}
				if err != nil && err != io.EOF {
					t.Fatalf("round %d: ReadAt(%q, %d, %d) error = %v\n%s", round, name, off, len(p), err, srv.LogString())
				}
			}
			f.Close()
		}
		fsys.Close()
	}
}
