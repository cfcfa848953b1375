package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

func TestStatsOverHTTP(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"site.zip": fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello"), "d/b.txt": []byte("bee")}, 0),
	})
	r := runCLI(t, "--stats", "cat", srv.URL()+"/site.zip|zip:d/b.txt")
	if r.code != 0 || r.stdout != "bee" {
		t.Fatalf("cat: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// A small zip costs one request: the suffix read at open holds it all.
	want := fmt.Sprintf("pipefs: stats: sub-URL 0 %q: %d requests", srv.URL()+"/site.zip", srv.Requests())
	if !strings.Contains(r.stderr, want) || srv.Requests() != 1 {
		t.Errorf("stderr = %q, want it to contain %q (server saw %d requests)", r.stderr, want, srv.Requests())
	}
	if r := runCLI(t, "cat", srv.URL()+"/site.zip|zip:a.txt"); strings.Contains(r.stderr, "stats") {
		t.Errorf("stats printed without --stats: %q", r.stderr)
	}
}
