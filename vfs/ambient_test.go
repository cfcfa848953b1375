package vfs_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestNoTestingInLibrary checks with go list -deps that package vfs, and
// the packages that register the drivers, do not depend on package
// testing: what the library does cannot depend on whether it runs in a
// test binary.
func TestNoTestingInLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	gotool := fstest.NeedTool(t, "go")
	for _, pkg := range []string{"github.com/pipefs/pipefs/vfs", "github.com/pipefs/pipefs", "github.com/pipefs/pipefs/all"} {
		out, err := exec.Command(gotool, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, "github.com/pipefs/pipefs/vfs") {
			t.Fatalf("go list -deps %s does not list package vfs: %d packages", pkg, len(deps))
		}
		if slices.Contains(deps, "testing") {
			t.Errorf("%s depends on package testing", pkg)
		}
	}
}
