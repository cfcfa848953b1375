package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

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

// TestOpenLocationKeepsFileError checks that when a location is not a
// directory and then fails to open as a file, the error of the file open
// is reported, not dropped.
func TestOpenLocationKeepsFileError(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.bin")
	if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	flakyOpens.Store(0)
	r := runCLI(t, "--no-detect", "ls", name+"|pipefstest.flaky:")
	if r.code != exitError || !strings.Contains(r.stderr, errSecondOpen.Error()) || !strings.Contains(r.stderr, "not a directory") {
		t.Errorf("exit %d, stderr %q; want 1 and both errors", r.code, r.stderr)
	}
	if n := flakyOpens.Load(); n != 2 {
		t.Errorf("the adapter was opened %d times, want 2", n)
	}
}
