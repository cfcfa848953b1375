package httproot_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// membersZip returns a stored zip of n members of size bytes each, plus a
// small one, "small.txt".
func membersZip(n, size int) (zipped []byte, files map[string][]byte) {
	files = map[string][]byte{"small.txt": []byte("7 bytes")}
	for i := range n {
		files[fmt.Sprintf("m%02d.bin", i)] = fstest.RandomBytes(size, uint64(i+1))
	}
	return fstest.ZipBytes(files, zip.Store), files
}

// spooled returns the temporary files in dir that spool objects and that
// the process holds open (they are unlinked at creation), and fails the
// test if any is left in dir by name.
func spooled(t *testing.T, dir string) []string {
	t.Helper()
	if left, err := filepath.Glob(filepath.Join(dir, "pipefs-remote-*")); err != nil || len(left) > 0 {
		t.Errorf("temporary files in %s by name: %q, %v; want none", dir, left, err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, filepath.Join(dir, "pipefs-remote-")) {
			open = append(open, target)
		}
	}
	return open
}

// stageCost returns the requests and bytes the stages of fsys counted.
func stageCost(fsys *vfs.FS) (requests, bytes int64) {
	for _, s := range fsys.Stages() {
		requests += s.Counts.Requests
		bytes += s.Counts.Bytes
	}
	return requests, bytes
}

// warnings returns a logger for vfs.Options.Logger that writes to the
// buffer it returns.
func warnings() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, nil)), &buf
}

// recordDefault sends log/slog's default logger to a buffer until the
// test ends.
func recordDefault(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// A server that ignores Range sends the whole zip for the first read:
// that body serves every later read, so reading several members costs one
// request and the object's size in bytes, as the server and the stages'
// counts both say; one warning, on the logger of the options, names the
// object.
func TestIgnoredRangeFetchesOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget int64 // the cache's budget
		n, sz  int   // members and their size
		file   bool  // spooled to a temporary file
	}{
		{"in memory", 256 << 20, 8, 128 << 10, false},
		{"temporary file", 4 << 20, 64, 1 << 20, true}, // a 64 MiB object
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			logger, warned := warnings()
			zipped, files := membersZip(tc.n, tc.sz)
			srv := fstest.NewHTTPServer(t, map[string][]byte{"a.zip": zipped})
			srv.Inject(fstest.Fault{Kind: fstest.FaultIgnoreRange, Times: -1})
			o := &httproot.Options{}
			o.Remote.Cache = cache.New(cache.Config{Budget: tc.budget})
			fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/a.zip|zip:", &vfs.Options{Logger: logger, Schemes: map[string]any{"http": o}})
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			for _, name := range []string{"small.txt", "m00.bin", "m03.bin", "m01.bin", "small.txt"} {
				mustReadFile(t, fsys, name, files[name])
			}
			if n, b := srv.Requests(), srv.Bytes(); n != 1 || b != int64(len(zipped)) {
				t.Errorf("the server saw %d requests, %d bytes; want 1 request, %d bytes:\n%s", n, b, len(zipped), srv.LogString())
			}
			if n, b := stageCost(fsys); n != 1 || b != int64(len(zipped)) {
				t.Errorf("the stages counted %d requests, %d bytes; want 1 request, %d bytes", n, b, len(zipped))
			}
			w := warned.String()
			if strings.Count(w, "ignores Range") != 1 || !strings.Contains(w, srv.URL()+"/a.zip") || !strings.Contains(w, "bytes="+strconv.Itoa(len(zipped))) {
				t.Errorf("warnings:\n%s\nwant one naming the object and its size", w)
			}
			if got := spooled(t, tmp); (len(got) == 1) != tc.file || len(got) > 1 {
				t.Errorf("temporary files open while the pipeline is: %q; want one: %v", got, tc.file)
			}
			if err := fsys.Close(); err != nil {
				t.Fatal(err)
			}
			if got := spooled(t, tmp); len(got) != 0 {
				t.Errorf("temporary files still open after Close: %q", got)
			}
		})
	}
}

// An open cancelled while the whole body is being spooled fails with
// context.Canceled and leaves no temporary file.
func TestIgnoredRangeCancelled(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const size = 32 << 20
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Ignores Range: 200 and the whole length. Half of the body is
		// more than the socket buffers hold, so once it is written the
		// client is spooling; then the client gives up.
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.Header().Set("ETag", `"v1"`)
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 1<<20)
		for range size / 2 / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		cancel()
		<-r.Context().Done()
	}))
	defer srv.Close()
	o := &httproot.Options{}
	o.Remote.Cache = cache.New(cache.Config{Budget: 4 << 20})
	_, err := vfs.OpenFS(ctx, srv.URL+"/a.bin", &vfs.Options{Schemes: map[string]any{"http": o}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("OpenFS error = %v, want context.Canceled", err)
	}
	if got := spooled(t, tmp); len(got) != 0 {
		t.Errorf("temporary files still open after a cancelled open: %q", got)
	}
}

// The warning about a server that ignores Range goes to Options.Logger,
// once per object and vfs.Cache: opening the object again with the same
// Cache logs nothing more, with another Cache it logs again, and another
// object logs too. Without a Logger, nothing is logged, and nothing goes
// to log/slog's default logger either way.
func TestIgnoredRangeWarnings(t *testing.T) {
	byDefault := recordDefault(t)
	// Larger than the suffix that opening an object asks for.
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.txt": fstest.RandomBytes(256<<10, 1), "b.txt": fstest.RandomBytes(256<<10, 2)})
	srv.Inject(fstest.Fault{Kind: fstest.FaultIgnoreRange, Times: -1})
	logger, warned := warnings()
	read := func(name string, o *vfs.Options) {
		t.Helper()
		f, err := vfs.Open(context.Background(), srv.URL()+"/"+name, o)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if b, err := io.ReadAll(f); err != nil || len(b) == 0 {
			t.Fatalf("reading %s: %q, %v", name, b, err)
		}
	}
	count := func() int { return strings.Count(warned.String(), "ignores Range") }

	read("a.txt", &vfs.Options{Cache: vfs.NewCache(0)})
	read("a.txt", nil)
	if warned.Len() != 0 || byDefault.Len() != 0 {
		t.Fatalf("opens without a Logger logged:\n%s%s", warned, byDefault)
	}
	one, two := vfs.NewCache(0), vfs.NewCache(0)
	for range 2 {
		read("a.txt", &vfs.Options{Cache: one, Logger: logger})
	}
	if n := count(); n != 1 || !strings.Contains(warned.String(), srv.URL()+"/a.txt") {
		t.Errorf("two opens with one Cache: %d warnings, want 1 naming a.txt:\n%s", n, warned)
	}
	read("a.txt", &vfs.Options{Cache: two, Logger: logger})
	if n := count(); n != 2 {
		t.Errorf("an open with another Cache: %d warnings in all, want 2:\n%s", n, warned)
	}
	read("b.txt", &vfs.Options{Cache: one, Logger: logger})
	if n := count(); n != 3 || !strings.Contains(warned.String(), srv.URL()+"/b.txt") {
		t.Errorf("another object: %d warnings in all, want 3, the last naming b.txt:\n%s", n, warned)
	}
	if byDefault.Len() != 0 {
		t.Errorf("log/slog's default logger got:\n%s", byDefault)
	}
}
