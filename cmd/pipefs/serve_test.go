package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

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

// startServe runs pipefs serve on arg, on a loopback port, until ctx is
// canceled, and returns its address once it has logged it, the channel
// that gets its exit status, and its stderr.
func startServe(t *testing.T, ctx context.Context, arg string) (base string, done chan int, stderr *syncBuffer) {
	t.Helper()
	stderr = new(syncBuffer)
	done = make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", arg}, io.Discard, stderr) }()
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`)
	waitUntil(t, "serve to log its address", func() bool {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
			return true
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d early: %s", code, stderr.String())
		default:
		}
		return false
	}, func() string { return "it logged: " + stderr.String() })
	return base, done, stderr
}

// TestServeCommand runs the serve command on a loopback port, fetches a
// member and stops it the way SIGINT does: by canceling its context.
func TestServeCommand(t *testing.T) {
	zipURL := site(t, "cli/servecmd")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	base, done, stderr := startServe(t, ctx, zipURL)
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
	if code := waitChan(t, "serve to shut down", done, stderr.String); code != 0 {
		t.Errorf("serve exited %d after shutdown: %s", code, stderr.String())
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

// TestServeCompressed: serve shows a compressed file of text as the
// folder that holds its decompressed file, which answers Range requests;
// serving the compressed file itself serves that folder.
func TestServeCompressed(t *testing.T) {
	text := bytes.Repeat([]byte("0123456789abcdef"), 1<<12)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(text)
	w.Close()
	dir := t.TempDir()
	gzPath := filepath.Join(dir, "notes.txt.gz")
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arg, member string }{
		{dir, "notes.txt.gz/notes.txt"},
		{gzPath, "notes.txt"},
	} {
		t.Run(filepath.Base(tc.arg), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			base, done, stderr := startServe(t, ctx, tc.arg)
			req, _ := http.NewRequest("GET", base+tc.member, nil)
			req.Header.Set("Range", "bytes=16-31")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusPartialContent || string(body) != "0123456789abcdef" {
				t.Errorf("GET %s with a Range: %s %q", tc.member, resp.Status, body)
			}
			if d := path.Dir(tc.member); d != "." {
				resp, err := http.Get(base + d + "/")
				if err != nil {
					t.Fatal(err)
				}
				page, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.Contains(string(page), `href="/`+tc.member+`"`) {
					t.Errorf("GET %s/: %s; want a page that links %s", d, resp.Status, tc.member)
				}
			}
			cancel()
			waitChan(t, "serve to shut down", done, stderr.String)
		})
	}
}

func TestServeFile(t *testing.T) {
	zipURL := site(t, "cli/servefile")
	r := runCLI(t, "serve", "--addr", "127.0.0.1:0", zipURL+"|zip:README.txt")
	if r.code != 1 || !strings.Contains(r.stderr, "not a directory") {
		t.Errorf("serve of a file: exit %d, stderr %q", r.code, r.stderr)
	}
}
