package fstest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
)

func get(t *testing.T, s *fstest.HTTPServer, name string, hdr map[string]string) (*http.Response, []byte, error) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL()+"/"+name, nil)
	req.Header.Set("Accept-Encoding", "identity")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func TestHTTPServer(t *testing.T) {
	data := []byte("0123456789abcdefghij")
	s := fstest.NewHTTPServer(t, map[string][]byte{"d/f": data})
	for _, tc := range []struct {
		rng    string
		status int
		body   string
	}{{"", 200, string(data)}, {"bytes=2-4", 206, "234"}, {"bytes=-3", 206, "hij"}, {"bytes=18-", 206, "ij"}} {
		resp, b, err := get(t, s, "d/f", map[string]string{"Range": tc.rng})
		if err != nil || resp.StatusCode != tc.status || string(b) != tc.body {
			t.Errorf("Range %q: %v %q %v, want %d %q", tc.rng, resp.StatusCode, b, err, tc.status, tc.body)
		}
	}
	if s.Requests() != 4 || s.Bytes() != int64(len(data)+3+3+2) {
		t.Errorf("counters: %d requests, %d bytes\n%s", s.Requests(), s.Bytes(), s.LogString())
	}
	resp, _, _ := get(t, s, "d/f", nil)
	etag := resp.Header.Get("ETag")
	if len(etag) < 3 || etag[0] != '"' {
		t.Errorf("ETag %q is not strong", etag)
	}
	if resp, _, _ := get(t, s, "d/f", map[string]string{"If-Match": etag, "Range": "bytes=0-0"}); resp.StatusCode != 206 {
		t.Errorf("If-Match with the ETag: %d", resp.StatusCode)
	}
	s.Set("d/f", []byte("new"))
	if resp, _, _ := get(t, s, "d/f", map[string]string{"If-Match": etag}); resp.StatusCode != 412 {
		t.Errorf("If-Match after a change: %d, want 412", resp.StatusCode)
	}
	if resp, _, _ := get(t, s, "missing", nil); resp.StatusCode != 404 {
		t.Errorf("missing: %d", resp.StatusCode)
	}
	s.Reset()
	if s.Requests() != 0 || s.Bytes() != 0 || len(s.Log()) != 0 {
		t.Errorf("Reset left %d requests, %d bytes, %d log entries", s.Requests(), s.Bytes(), len(s.Log()))
	}
}

func TestHTTPServerFaults(t *testing.T) {
	data := bytes.Repeat([]byte("pipefs "), 1000)
	s := fstest.NewHTTPServer(t, map[string][]byte{"f": data})

	s.Inject(fstest.Fault{Kind: fstest.FaultStatus, Status: 429, RetryAfter: "7"})
	if resp, _, _ := get(t, s, "f", nil); resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" {
		t.Errorf("429 fault: %d %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	s.Inject(fstest.Fault{Kind: fstest.FaultShortBody, Cut: 100})
	if _, b, err := get(t, s, "f", nil); err == nil || len(b) != 100 {
		t.Errorf("short body: %d bytes, %v; want 100 and an error", len(b), err)
	}
	s.Inject(fstest.Fault{Kind: fstest.FaultReset})
	if _, _, err := get(t, s, "f", nil); err == nil {
		t.Errorf("reset: no error")
	}
	s.Inject(fstest.Fault{Kind: fstest.FaultIgnoreRange})
	if resp, b, _ := get(t, s, "f", map[string]string{"Range": "bytes=0-1"}); resp.StatusCode != 200 || len(b) != len(data) {
		t.Errorf("ignore range: %d, %d bytes", resp.StatusCode, len(b))
	}
	s.Inject(fstest.Fault{Kind: fstest.FaultNoLength})
	if resp, b, _ := get(t, s, "f", nil); resp.ContentLength != -1 || len(b) != len(data) {
		t.Errorf("no length: Content-Length %d, %d bytes", resp.ContentLength, len(b))
	}
	s.Inject(fstest.Fault{Kind: fstest.FaultGzip})
	if resp, b, _ := get(t, s, "f", map[string]string{"Range": "bytes=0-1"}); resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("gzip: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	} else if zr, err := gzip.NewReader(bytes.NewReader(b)); err != nil {
		t.Errorf("gzip: %v", err)
	} else if u, _ := io.ReadAll(zr); !bytes.Equal(u, data) {
		t.Errorf("gzip: decoded body differs")
	}
	s.Inject(fstest.Fault{Kind: fstest.FaultChange, Data: []byte("changed")})
	if _, b, _ := get(t, s, "f", nil); string(b) != "changed" {
		t.Errorf("change: %q", b)
	}
	// A delay of an hour: the request is logged but not answered before
	// the client gives up, and the next one is answered.
	s.Inject(fstest.Fault{Kind: fstest.FaultDelay, Delay: time.Hour})
	before := s.Requests()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for s.Requests() == before {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/f", nil)
	if resp, err := s.Client().Do(req); !errors.Is(err, context.Canceled) {
		if err == nil {
			resp.Body.Close()
		}
		t.Errorf("delay: request cancelled while the server waits: error = %v, want context.Canceled", err)
	}
	if _, b, err := get(t, s, "f", nil); err != nil || string(b) != "changed" {
		t.Errorf("after the delayed request: %q, %v; want \"changed\"", b, err)
	}
	s.Inject(fstest.Fault{Kind: fstest.FaultStatus, Times: 2, Path: "f"})
	for i, want := range []int{503, 503, 200} {
		if resp, _, _ := get(t, s, "f", nil); resp.StatusCode != want {
			t.Errorf("Times 2, request %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
	// Skip lets the first requests that match through; a request that
	// does not match counts for nothing.
	s.Inject(fstest.Fault{Kind: fstest.FaultStatus, Skip: 2, Path: "f"})
	for i, tc := range []struct {
		name string
		want int
	}{{"f", 200}, {"missing", 404}, {"f", 200}, {"f", 503}, {"f", 200}} {
		if resp, _, _ := get(t, s, tc.name, nil); resp.StatusCode != tc.want {
			t.Errorf("Skip 2, request %d for %s: %d, want %d", i, tc.name, resp.StatusCode, tc.want)
		}
	}
}

// StrongETagOnly sends a strong ETag that changes with the content and no
// Last-Modified, and honours If-Match.
func TestHTTPServerStrongETagOnly(t *testing.T) {
	s := fstest.NewHTTPServer(t, map[string][]byte{"f": []byte("old!")})
	s.SetETagStyle(fstest.StrongETagOnly)
	resp, _, err := get(t, s, "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	etag := resp.Header.Get("ETag")
	if etag == "" || etag[0] != '"' || resp.Header.Get("Last-Modified") != "" {
		t.Fatalf("ETag %q, Last-Modified %q: want a strong ETag and no Last-Modified", etag, resp.Header.Get("Last-Modified"))
	}
	s.Set("f", []byte("new!"))
	resp, b, err := get(t, s, "f", map[string]string{"If-Match": etag})
	if err != nil || resp.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("If-Match the old ETag after Set: %v %q %v, want 412", resp.StatusCode, b, err)
	}
	resp, b, err = get(t, s, "f", nil)
	if err != nil || string(b) != "new!" || resp.Header.Get("ETag") == etag || resp.Header.Get("Last-Modified") != "" {
		t.Fatalf("after Set: %q ETag %q Last-Modified %q %v", b, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), err)
	}
}

// A rate-capped answer sends every byte, and Peak counts the answers under
// way at once: four bodies held open by a slow rate are four at once.
func TestHTTPServerRateAndPeak(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	s := fstest.NewHTTPServer(t, map[string][]byte{"f": data})
	s.SetRate(1 << 20)
	if _, b, err := get(t, s, "f", map[string]string{"Range": "bytes=100-40099"}); err != nil || !bytes.Equal(b, data[100:40100]) {
		t.Fatalf("a paced range: %d bytes, %v", len(b), err)
	}
	if s.Peak() != 1 {
		t.Errorf("one request at a time: Peak = %d, want 1", s.Peak())
	}
	s.SetRate(1 << 10) // a 64 KiB body takes a minute: its handler stays
	var resps []*http.Response
	for range 4 {
		req, _ := http.NewRequest("GET", s.URL()+"/f", nil)
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resps = append(resps, resp) // the headers came: the answer is under way
	}
	if s.Peak() != 4 {
		t.Errorf("four bodies under way: Peak = %d, want 4", s.Peak())
	}
	for _, r := range resps {
		r.Body.Close() // the pacer stops with the client
	}
	s.Reset()
	if s.Peak() > 4 {
		t.Errorf("after Reset: Peak = %d, want at most the 4 under way", s.Peak())
	}
}
