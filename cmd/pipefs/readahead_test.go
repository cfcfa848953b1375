package main

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
)

// --streams and --part-size size the parallel readahead of a large
// sequential read: cat with --streams 1 keeps one request in flight, with
// --streams 4 several and at most 4; larger parts take fewer requests;
// every byte is fetched once and comes out right.
func TestStreamsFlags(t *testing.T) {
	data := make([]byte, 24<<20)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"obj": data})
	srv.SetLatency(30 * time.Millisecond)
	url := srv.URL() + "/obj"
	requests := map[string]int64{}
	for _, tc := range []struct {
		args    []string
		maxPeak int64
	}{
		{[]string{"--streams", "1"}, 1},
		{[]string{"--streams", "4", "--part-size", "1M"}, 4},
		{[]string{"--streams", "4", "--part-size", "4M"}, 4},
	} {
		srv.Reset()
		args := append(append([]string{"--cache-dir", "off"}, tc.args...), "cat", url)
		res := runCLI(t, args...)
		if res.code != 0 || res.stderr != "" {
			t.Fatalf("pipefs %q: exit %d, stderr:\n%s", args, res.code, res.stderr)
		}
		if !bytes.Equal([]byte(res.stdout), data) {
			t.Fatalf("pipefs %q: the output differs from the object", args)
		}
		name := strings.Join(tc.args, " ")
		if srv.Bytes() > int64(len(data))+64<<10 {
			t.Errorf("%s: %d bytes sent for %d", name, srv.Bytes(), len(data))
		}
		if p := srv.Peak(); p > tc.maxPeak || (tc.maxPeak > 1 && p < 2) {
			t.Errorf("%s: %d requests in flight at most, want %s", name, p, map[bool]string{true: "1", false: "2 to 4"}[tc.maxPeak == 1])
		}
		requests[name] = srv.Requests()
	}
	if one, small, large := requests["--streams 1"], requests["--streams 4 --part-size 1M"], requests["--streams 4 --part-size 4M"]; !(large < small && one < small) {
		t.Errorf("requests: %d with --streams 1, %d with 1 MiB parts, %d with 4 MiB parts; want fewer with larger parts and with one stream", one, small, large)
	}
	for _, args := range [][]string{{"--streams", "0", "cat", url}, {"--part-size", "0", "cat", url}, {"--part-size", "x", "cat", url}} {
		if res := runCLI(t, args...); res.code != 2 || !strings.Contains(res.stderr, args[0]) {
			t.Errorf("pipefs %q: exit %d, stderr %q; want a usage error naming %s", args, res.code, res.stderr, args[0])
		}
	}
}
