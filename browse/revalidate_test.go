package browse

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
)

// fetchWith serves one request from 127.0.0.1 with header, and returns
// its status, body and ETag.
func fetchWith(t *testing.T, h http.Handler, target string, header map[string]string) (int, string, string) {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	req.Host = "127.0.0.1:8080"
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String(), rec.Header().Get("ETag")
}

// wantFile fetches target and fails unless it is a 200 with body want; it
// returns the ETag.
func wantFile(t *testing.T, h http.Handler, target, want string) string {
	t.Helper()
	code, got, tag := fetchWith(t, h, target, nil)
	if code != 200 || got != want {
		t.Fatalf("GET %s: %d %q, want 200 %q", target, code, short(got), want)
	}
	return tag
}

// short returns s, or its first 300 bytes (an error page's start).
func short(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// listed returns the names a directory page lists.
func listed(t *testing.T, h http.Handler, target string) []string {
	t.Helper()
	var out []string
	for _, e := range fetchPage(t, h, target, 200).Dir.Entries {
		out = append(out, e.Name)
	}
	return out
}

// layerAt returns the layer kept for the container pipeline u, or nil.
func layerAt(s *Handler, u string) *layer {
	s.layers.mu.Lock()
	defer s.layers.mu.Unlock()
	return s.layers.byKey["file\x00"+u]
}

// tarBytes returns a tar of name and body pairs.
func tarBytes(t *testing.T, pairs ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	writeTar(t, tw, pairs...)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeTar(t *testing.T, tw *tar.Writer, pairs ...string) {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if err := tw.WriteHeader(&tar.Header{Name: pairs[i], Mode: 0o644, Size: int64(len(pairs[i+1])), ModTime: modTime}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(pairs[i+1])); err != nil {
			t.Fatal(err)
		}
	}
}

func gzipBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestServeRevalidateZip is the sequence, with the zip tool: a
// zip rewritten under a running serve shows its new bytes with a new
// ETag (the old one gets a 200, not a 304), its new member and its new
// listing at the next request; while it is unchanged, its layer is kept.
// A zip rewritten in place with the same size and time, whose member
// keeps its size and time, gets a new ETag too.
func TestServeRevalidateZip(t *testing.T) {
	t.Run("zip tool", func(t *testing.T) {
		zipTool := fstest.NeedTool(t, "zip")
		dir := t.TempDir()
		run := func(files map[string]string, members ...string) {
			t.Helper()
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(zipTool, append([]string{"-q", "a.zip"}, members...)...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("zip: %v\n%s", err, out)
			}
		}
		run(map[string]string{"m1.txt": "one\n"}, "m1.txt")
		s := nestServer(t, dir)
		var logged bytes.Buffer
		s.layers.logger = slog.New(slog.NewTextHandler(&logged, nil))
		old := wantFile(t, s, "/a.zip/m1.txt", "one\n")
		kept := layerAt(s, rootURL(s, "a.zip"))
		if code, _, _ := fetchWith(t, s, "/a.zip/m1.txt", map[string]string{"If-None-Match": old}); code != http.StatusNotModified {
			t.Errorf("If-None-Match with the ETag of the unchanged member: %d, want 304", code)
		}
		if got := wantFile(t, s, "/a.zip/m1.txt", "one\n"); got != old {
			t.Errorf("the unchanged member's ETag went from %s to %s", old, got)
		}
		if l := layerAt(s, rootURL(s, "a.zip")); l != kept {
			t.Error("the layer of the unchanged zip was opened again")
		}
		if got := listed(t, s, "/a.zip/"); !slices.Equal(got, []string{"m1.txt"}) {
			t.Fatalf("a.zip/ lists %q", got)
		}
		size := entryNamed(t, fetchPage(t, s, "/", 200), "a.zip").Size

		run(map[string]string{"m1.txt": "changed\n", "m2.txt": "new\n"}, "m1.txt", "m2.txt")
		if tag := wantFile(t, s, "/a.zip/m1.txt", "changed\n"); tag == old {
			t.Errorf("the changed member kept its ETag %s", tag)
		}
		if code, got, _ := fetchWith(t, s, "/a.zip/m1.txt", map[string]string{"If-None-Match": old}); code != 200 || got != "changed\n" {
			t.Errorf("If-None-Match with the old ETag: %d %q, want 200 and the new bytes", code, short(got))
		}
		wantFile(t, s, "/a.zip/m2.txt", "new\n")
		if got := listed(t, s, "/a.zip/"); !slices.Equal(got, []string{"m1.txt", "m2.txt"}) {
			t.Errorf("a.zip/ lists %q after the rewrite, want m1.txt and m2.txt", got)
		}
		if got := entryNamed(t, fetchPage(t, s, "/", 200), "a.zip").Size; got == size {
			t.Errorf("the listing shows a.zip with its old size %d", size)
		}
		if !kept.closed.Load() {
			t.Error("the layer of the old zip is still open")
		}
		for _, want := range []string{`msg="opening again" pipeline=` + rootURL(s, "a.zip") + "|zip: ", `reason="` + rootURL(s, "a.zip") + ": object modified since open"} {
			if !strings.Contains(logged.String(), want) {
				t.Errorf("the log says %q, want it to hold %q", logged.String(), want)
			}
		}
	})
	t.Run("in place, same size and time", func(t *testing.T) {
		dir := t.TempDir()
		name := filepath.Join(dir, "a.zip")
		write := func(body string) {
			t.Helper()
			if err := os.WriteFile(name, zipOf(t, entry{name: "m1.txt", body: body, store: true}), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(name, modTime, modTime); err != nil {
				t.Fatal(err)
			}
		}
		write("one\n")
		before, _ := os.Stat(name)
		s := nestServer(t, dir)
		old := wantFile(t, s, "/a.zip/m1.txt", "one\n")
		write("two\n")
		after, _ := os.Stat(name)
		if before.Size() != after.Size() || !before.ModTime().Equal(after.ModTime()) || !os.SameFile(before, after) {
			t.Fatalf("not the same file with the same size and time: %v, %v", before, after)
		}
		if code, got, tag := fetchWith(t, s, "/a.zip/m1.txt", map[string]string{"If-None-Match": old}); code != 200 || got != "two\n" || tag == old {
			t.Errorf("If-None-Match with the old ETag: %d %q, ETag %s (old %s), want 200, the new bytes and another ETag", code, short(got), tag, old)
		}
	})
}

// TestServeRevalidateAppend appends to files in place under a running
// serve: a member appended to a tar, and a tar.gz rewritten longer with
// another member. The new members open, the archives' listings show
// them, and the served directory's listing shows the new sizes though
// the directory's time did not change.
func TestServeRevalidateAppend(t *testing.T) {
	dir := t.TempDir()
	tarName, tgzName := filepath.Join(dir, "a.tar"), filepath.Join(dir, "b.tar.gz")
	if err := os.WriteFile(tarName, tarBytes(t, "a.txt", "first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tgzName, gzipBytes(t, tarBytes(t, "a.txt", "first\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	s := nestServer(t, dir)
	for _, d := range []string{"/a.tar/", "/b.tar.gz/"} {
		if got := listed(t, s, d); !slices.Equal(got, []string{"a.txt"}) {
			t.Fatalf("%s lists %q", d, got)
		}
	}
	root := fetchPage(t, s, "/", 200)
	sizes := map[string]int64{"a.tar": entryNamed(t, root, "a.tar").Size, "b.tar.gz": entryNamed(t, root, "b.tar.gz").Size}
	dirBefore, _ := os.Stat(dir)
	before, _ := os.Stat(tarName)

	// A member appended over the tar's end-of-archive blocks.
	f, err := os.OpenFile(tarName, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(-1024, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	writeTar(t, tw, "b.txt", "appended\n")
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The tar.gz, longer, written over in place.
	g, err := os.OpenFile(tgzName, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(gzipBytes(t, tarBytes(t, "a.txt", "first\n", "b.txt", "appended\n"))); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(tarName)
	dirAfter, _ := os.Stat(dir)
	if !os.SameFile(before, after) || !dirBefore.ModTime().Equal(dirAfter.ModTime()) {
		t.Fatal("the tar was not appended to in place, or the directory's time changed")
	}

	for _, d := range []string{"/a.tar/", "/b.tar.gz/"} {
		wantFile(t, s, d+"b.txt", "appended\n")
		wantFile(t, s, d+"a.txt", "first\n")
		if got := listed(t, s, d); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
			t.Errorf("%s lists %q after the append, want a.txt and b.txt", d, got)
		}
	}
	root = fetchPage(t, s, "/", 200)
	for name, old := range sizes {
		if got := entryNamed(t, root, name).Size; got <= old {
			t.Errorf("the listing shows %s with %d bytes, want more than %d", name, got, old)
		}
	}
}

// revalZips returns two versions of an archive: m1.txt and inner.tar
// (holding a.txt), then with other bytes in both and a member m2.txt.
func revalZips(t *testing.T) (old, new []byte) {
	old = zipOf(t, entry{name: "m1.txt", body: "one\n"}, entry{name: "inner.tar", body: string(tarBytes(t, "a.txt", "inner one\n")), store: true})
	new = zipOf(t, entry{name: "m1.txt", body: "changed\n"}, entry{name: "m2.txt", body: "new\n"},
		entry{name: "inner.tar", body: string(tarBytes(t, "a.txt", "inner changed\n")), store: true})
	return old, new
}

// TestServeRevalidateRemote replaces an object on the HTTP server under a
// running serve whose interval is short: once it has passed, serve shows
// the new bytes, with a new ETag, the new member and the nested tar's new
// bytes. The served location is the archive itself, or the server's
// directory that holds it.
func TestServeRevalidateRemote(t *testing.T) {
	oldZip, newZip := revalZips(t)
	for _, tc := range []struct{ name, root, prefix string }{
		{"archive", "/outer.zip", ""},
		{"directory", "/", "/outer.zip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fstest.NewHTTPServer(t, map[string][]byte{"outer.zip": oldZip})
			s := serverAt(t, srv.URL()+tc.root, nil)
			s.layers.revalidate = 20 * time.Millisecond
			old := wantFile(t, s, tc.prefix+"/m1.txt", "one\n")
			wantFile(t, s, tc.prefix+"/inner.tar/a.txt", "inner one\n")
			srv.Set("outer.zip", newZip)
			for deadline := time.Now().Add(10 * time.Second); ; {
				code, got, tag := fetchWith(t, s, tc.prefix+"/m1.txt", map[string]string{"If-None-Match": old})
				if code == 200 && got == "changed\n" {
					if tag == old {
						t.Errorf("the new bytes have the old ETag %s", tag)
					}
					break
				}
				if code != 200 && code != http.StatusNotModified || time.Now().After(deadline) {
					t.Fatalf("GET %s/m1.txt: %d %q, want the new bytes\n%s", tc.prefix, code, short(got), srv.LogString())
				}
				time.Sleep(time.Millisecond) // until the interval has passed
			}
			wantFile(t, s, tc.prefix+"/m2.txt", "new\n")
			wantFile(t, s, tc.prefix+"/inner.tar/a.txt", "inner changed\n")
		})
	}
}

// A fakeClock is the time of a layerCache in tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestServeRevalidateRequests counts what revalidating a remote archive
// costs, on a clock of the test's: the layers of the archive and of the
// tar inside it, which read the same object, ask whether it changed with
// one conditional request for its last byte once the interval has passed,
// and none within it, however many requests come, concurrent ones
// included. Once the object changed, that request is answered 412, and
// both layers are opened again; the second asks nothing.
func TestServeRevalidateRequests(t *testing.T) {
	oldZip, newZip := revalZips(t)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"outer.zip": oldZip})
	s := serverAt(t, srv.URL()+"/outer.zip", nil)
	clock := &fakeClock{t: time.Now()}
	s.layers.now = clock.now
	const interval = time.Second
	s.layers.revalidate = interval
	targets := []string{"/m1.txt", "/inner.tar/a.txt", "/inner.tar/", "/"}
	browse := func() {
		t.Helper()
		for _, target := range targets {
			if code, got, _ := fetchWith(t, s, target, nil); code != 200 {
				t.Fatalf("GET %s: %d\n%s", target, code, short(got))
			}
		}
	}
	// checks returns the requests made since the last Reset, failing
	// unless each is a revalidation: one byte, conditional.
	checks := func() int {
		t.Helper()
		log := srv.Log()
		for _, r := range log {
			if r.Range != "bytes=-1" || r.Cond == "" {
				t.Errorf("a request that does not revalidate: %v\n%s", r, srv.LogString())
			}
		}
		return len(log)
	}
	browse() // opens the layers
	srv.Reset()
	for range 3 {
		browse()
	}
	if n := checks(); n != 0 {
		t.Errorf("within the interval of the open: %d requests, want 0", n)
	}
	for i, step := range []struct {
		advance time.Duration
		want    int
	}{
		{interval, 1},
		{interval - time.Millisecond, 1},
		{time.Millisecond, 2},
		{5 * interval, 3},
	} {
		clock.advance(step.advance)
		for range 3 {
			browse()
		}
		if n := checks(); n != step.want {
			t.Errorf("step %d (+%v): %d requests in all, want %d\n%s", i, step.advance, n, step.want, srv.LogString())
		}
	}

	// Concurrent requests past the interval share one check.
	srv.Reset()
	clock.advance(interval)
	var wg sync.WaitGroup
	codes := make(chan int, 16)
	for range 8 {
		for _, target := range []string{"/m1.txt", "/inner.tar/a.txt"} {
			wg.Go(func() { codes <- fetch(t, s, target).StatusCode })
		}
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != 200 {
			t.Errorf("a concurrent request: %d", code)
		}
	}
	if n := checks(); n != 1 {
		t.Errorf("16 concurrent requests past the interval: %d requests, want 1", n)
	}

	// The object changes: the check is answered 412, the layers are
	// opened again, and the second one reopened asks nothing.
	srv.Set("outer.zip", newZip)
	srv.Reset()
	clock.advance(interval)
	wantFile(t, s, "/m1.txt", "changed\n")
	wantFile(t, s, "/inner.tar/a.txt", "inner changed\n")
	var asked []fstest.HTTPRequest
	for _, r := range srv.Log() {
		if r.Range == "bytes=-1" {
			asked = append(asked, r)
		}
	}
	if len(asked) != 1 || asked[0].Status != http.StatusPreconditionFailed {
		t.Errorf("after the change: revalidations %v, want one answered 412\n%s", asked, srv.LogString())
	}
	t.Logf("after the change: %d requests, reopening the archive and the tar", srv.Requests())
	srv.Reset()
	browse()
	if n := checks(); n != 0 {
		t.Errorf("browsing the new version within the interval: %d requests, want 0", n)
	}
}
