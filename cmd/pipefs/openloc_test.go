package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// flakyOpens counts the opens of the pipefstest.flaky adapter, which
// yields a file the first time and fails every time after.
var flakyOpens atomic.Int32

var errSecondOpen = errors.New("the second open failed")

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{
		Scheme: "pipefstest.flaky",
		OpenFile: func(_ context.Context, in driver.Blob, _ vfs.SubURL, _ *vfs.Env) (driver.Location, error) {
			if flakyOpens.Add(1) > 1 {
				return driver.Location{}, errSecondOpen
			}
			return driver.Location{Blob: in}, nil
		},
		Summary: "a test adapter that opens once",
	})
}

// TestOpenLocationOpensOnce checks that a location that is not a directory
// is opened once, not once as a directory and again as a file.
func TestOpenLocationOpensOnce(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.bin")
	if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	flakyOpens.Store(0)
	if out := mustRun(t, "--no-detect", "ls", name+"|pipefstest.flaky:"); !strings.Contains(out, "x.bin") {
		t.Errorf("ls of a file location printed %q, want its name", out)
	}
	if n := flakyOpens.Load(); n != 1 {
		t.Errorf("the adapter was opened %d times, want 1", n)
	}
}

// TestOpenLocationRemoteRequests checks that ls -l of a plain remote file,
// or of a member of a remote zip, costs one request, as cat of it does.
func TestOpenLocationRemoteRequests(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"a.txt": []byte("a plain remote text file\n"),
		"a.zip": zipOf(t, entry{name: "m.txt", body: "a member"}),
	})
	for _, args := range [][]string{{"ls", "-l"}, {"cat"}, {"stat"}} {
		for _, name := range []string{"/a.txt", "/a.zip|zip:m.txt"} {
			srv.Reset()
			mustRun(t, append(args, srv.URL()+name)...)
			if n := srv.Requests(); n != 1 {
				t.Errorf("pipefs %s of %s: %d requests, want 1:\n%s", strings.Join(args, " "), name, n, srv.LogString())
			}
		}
	}
}
