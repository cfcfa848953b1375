package main

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestArcpStatsOverHTTP: with --stats, arcp reports every request it
// made, those of hashing the container included.
func TestArcpStatsOverHTTP(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"site.zip": fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello"), "d/b.txt": []byte("bee")}, 0),
	})
	r := runCLI(t, "--stats", "arcp", srv.URL()+"/site.zip|zip:a.txt")
	if r.code != 0 {
		t.Fatalf("arcp: exit %d, stderr %q", r.code, r.stderr)
	}
	var reported int64
	for _, m := range regexp.MustCompile(`(?m)^pipefs: stats: .*: (\d+) requests`).FindAllStringSubmatch(r.stderr, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		reported += n
	}
	if reported != srv.Requests() {
		t.Errorf("--stats reports %d requests, the server saw %d:\n%s", reported, srv.Requests(), r.stderr)
	}
}
