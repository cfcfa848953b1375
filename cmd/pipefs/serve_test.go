package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
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

func TestServeFile(t *testing.T) {
	zipURL := site(t, "cli/servefile")
	r := runCLI(t, "serve", "--addr", "127.0.0.1:0", zipURL+"|zip:README.txt")
	if r.code != 1 || !strings.Contains(r.stderr, "not a directory") {
		t.Errorf("serve of a file: exit %d, stderr %q", r.code, r.stderr)
	}
}
