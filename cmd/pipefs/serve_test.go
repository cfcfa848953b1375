package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// serveFS opens the site fixture for the HTTP handler.
func serveFS(t *testing.T, dir string) *vfs.FS {
	t.Helper()
	fsys, err := vfs.OpenFS(t.Context(), site(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// get serves one request and returns the response.
func get(t *testing.T, h http.Handler, target string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestServeRange(t *testing.T) {
	h := newHandler(serveFS(t, "cli/serverange"), nil)

	resp := get(t, h, "/README.txt", nil)
	if resp.StatusCode != 200 || body(t, resp) != "hello, world\n" {
		t.Fatalf("GET /README.txt: %s", resp.Status)
	}
	if got := resp.Header.Get("Accept-Ranges"); got != "bytes" {
		t.Errorf("Accept-Ranges = %q, want bytes", got)
	}

	// A deflated member.
	resp = get(t, h, "/README.txt", map[string]string{"Range": "bytes=7-11"})
	if resp.StatusCode != http.StatusPartialContent {
		t.Errorf("Range on a deflated member: %s, want 206", resp.Status)
	}
	if got := body(t, resp); got != "world" {
		t.Errorf("Range bytes=7-11 = %q, want %q", got, "world")
	}
	if got := resp.Header.Get("Content-Range"); got != "bytes 7-11/13" {
		t.Errorf("Content-Range = %q, want bytes 7-11/13", got)
	}

	// A member of a stored zip inside the zip, by suffix range.
	h2 := newHandler(serveFS(t, "cli/serverange2").WithContext(t.Context()), nil)
	resp = get(t, h2, "/data/inner.zip", nil)
	inner := body(t, resp)
	resp = get(t, h2, "/data/inner.zip", map[string]string{"Range": "bytes=-22"})
	if resp.StatusCode != http.StatusPartialContent {
		t.Errorf("suffix Range: %s, want 206", resp.Status)
	}
	if got := body(t, resp); got != inner[len(inner)-22:] {
		t.Errorf("suffix Range = %q, want the end of central directory record %q", got, inner[len(inner)-22:])
	}

	resp = get(t, h, "/README.txt", map[string]string{"Range": "bytes=100-200"})
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("Range past the end: %s, want 416", resp.Status)
	}
}

func TestServeConditional(t *testing.T) {
	h := newHandler(serveFS(t, "cli/servecond"), nil)

	resp := get(t, h, "/docs/guide.md", nil)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || body(t, resp) != "# Guide\n" {
		t.Fatalf("GET /docs/guide.md: %s", resp.Status)
	}
	if !regexp.MustCompile(`^"[0-9a-f]{16}"$`).MatchString(etag) {
		t.Fatalf("ETag = %q, want a strong tag", etag)
	}
	if got, want := resp.Header.Get("Last-Modified"), modTime.Format(http.TimeFormat); got != want {
		t.Errorf("Last-Modified = %q, want %q", got, want)
	}
	if other := get(t, h, "/README.txt", nil).Header.Get("ETag"); other == etag {
		t.Errorf("two files share the ETag %s", etag)
	}
	if again := get(t, h, "/docs/guide.md", nil).Header.Get("ETag"); again != etag {
		t.Errorf("ETag changed between requests: %s then %s", etag, again)
	}

	tests := []struct {
		name   string
		header map[string]string
		status int
		body   string
	}{
		{"If-None-Match matches", map[string]string{"If-None-Match": etag}, http.StatusNotModified, ""},
		{"If-None-Match differs", map[string]string{"If-None-Match": `"other"`}, 200, "# Guide\n"},
		{"If-Modified-Since at the time", map[string]string{"If-Modified-Since": modTime.Format(http.TimeFormat)}, http.StatusNotModified, ""},
		{"If-Modified-Since before", map[string]string{"If-Modified-Since": modTime.Add(-time.Hour).Format(http.TimeFormat)}, 200, "# Guide\n"},
		{"If-Range matches", map[string]string{"If-Range": etag, "Range": "bytes=2-6"}, http.StatusPartialContent, "Guide"},
		{"If-Range differs", map[string]string{"If-Range": `"other"`, "Range": "bytes=2-6"}, 200, "# Guide\n"},
		{"If-Match differs", map[string]string{"If-Match": `"other"`}, http.StatusPreconditionFailed, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := get(t, h, "/docs/guide.md", tc.header)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if got := body(t, resp); tc.body != "" && got != tc.body {
				t.Errorf("body %q, want %q", got, tc.body)
			}
		})
	}
}

func TestServeListing(t *testing.T) {
	h := newHandler(serveFS(t, "cli/servelist"), nil)
	resp := get(t, h, "/docs/", nil)
	got := body(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(got, `<a href="/docs/guide.md">guide.md</a>`) || !strings.Contains(got, `<a href="/docs/api/">api/</a>`) {
		t.Errorf("GET /docs/: %s\n%s", resp.Status, got)
	}
	if resp := get(t, h, "/docs", nil); resp.StatusCode != http.StatusMovedPermanently {
		t.Errorf("GET /docs: %s, want a redirect to /docs/", resp.Status)
	}
	if resp := get(t, h, "/nope.txt", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope.txt: %s, want 404", resp.Status)
	}
	if resp := get(t, h, "/docs/", nil); resp.Header.Get("ETag") != "" {
		t.Errorf("a directory listing has an ETag")
	}
}

// syncBuffer is a bytes buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeCommand runs the serve command on a loopback port, fetches a
// member and stops it the way SIGINT does: by canceling its context.
func TestServeCommand(t *testing.T) {
	zipURL := site(t, "cli/servecmd")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout io.Writer = io.Discard
	stderr := new(syncBuffer)
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", zipURL}, stdout, stderr) }()

	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d early: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve logged no address: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "serving "+zipURL+"|zip: on ") {
		t.Errorf("log = %q, want the resolved pipeline", stderr.String())
	}
	resp, err := http.Get(base + "data/inner.zip")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET data/inner.zip: %s", resp.Status)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d after shutdown: %s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not shut down")
	}
	if _, err := http.Get(base); err == nil {
		t.Error("the server still answers after shutdown")
	}
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "pipefs: ") {
			t.Errorf("log line %q lacks the pipefs: prefix", sc.Text())
		}
	}
}

func TestServeFile(t *testing.T) {
	zipURL := site(t, "cli/servefile")
	r := runCLI(t, "serve", "--addr", "127.0.0.1:0", zipURL+"|zip:README.txt")
	if r.code != 1 || !strings.Contains(r.stderr, "not a directory") {
		t.Errorf("serve of a file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRangeStart checks where serve reads a file's first block: at the
// start of the range a request asks for.
func TestRangeStart(t *testing.T) {
	for h, want := range map[string]int64{
		"":                 0,
		"bytes=0-99":       0,
		"bytes=1000-":      1000,
		"bytes=500-600,0-": 500,
		"bytes=-100":       0,
		"bytes=x-1":        0,
		"items=5-":         0,
	} {
		r := httptest.NewRequest("GET", "/f", nil)
		if h != "" {
			r.Header.Set("Range", h)
		}
		if got := rangeStart(r); got != want {
			t.Errorf("rangeStart(Range: %q) = %d, want %d", h, got, want)
		}
	}
}
