package main

import (
	"strconv"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// The library's warnings go to the run's stderr, once per object in a
// run: cat of an object twice from a server that ignores Range warns
// once.
func TestWarningsOnStderr(t *testing.T) {
	data := fstest.RandomBytes(256<<10, 7)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.bin": data})
	srv.Inject(fstest.Fault{Kind: fstest.FaultIgnoreRange, Times: -1})
	url := srv.URL() + "/a.bin"
	r := runCLI(t, "cat", url, url)
	if r.code != 0 || r.stdout != string(data)+string(data) {
		t.Fatalf("cat: exit %d, %d bytes out, stderr:\n%s", r.code, len(r.stdout), r.stderr)
	}
	want := "pipefs: warning: the server ignores Range requests: the whole object is downloaded once and kept (in memory or a temporary file) while the pipeline is open url=" + url + " bytes=" + strconv.Itoa(len(data)) + "\n"
	if r.stderr != want {
		t.Errorf("stderr:\n%s\nwant one warning:\n%s", r.stderr, want)
	}
}
