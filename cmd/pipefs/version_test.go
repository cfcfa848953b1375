package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestVersion: --version names the Go version and platform, and a build
// from a checkout names the commit it was built from.
func TestVersion(t *testing.T) {
	out := mustRun(t, "--version")
	if !strings.HasPrefix(out, "pipefs ") || !strings.Contains(out, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("--version = %q", out)
	}
	rev, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "pipefs")
	if b, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	got, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.Contains(string(got), "("+strings.TrimSpace(string(rev))) {
		t.Errorf("--version of a build at %s = %q, %v; want it to name the commit", rev, got, err)
	}
}
