package fstest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// modulePath is the module whose root Fixture looks for.
const modulePath = "github.com/pipefs/pipefs"

// InCI reports whether the tests run in continuous integration: the
// environment variable CI is set to anything but "", "0" or "false". In CI
// everything a test needs is installed, so a missing fixture or tool is a
// failure, not a reason to skip.
func InCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false":
		return false
	}
	return true
}

// Unavailable reports that something t needs is missing: outside CI it
// skips t with the message, in CI (see InCI) it fails t, since CI provides
// everything. Use it instead of t.Skip for anything CI has.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("%s (CI is set, so this is a failure: CI must provide it)", msg)
	}
	t.Skip(msg)
}

// moduleRoot finds the directory of the module's go.mod at or above the
// working directory, which go test sets to the package's directory.
var moduleRoot = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isModuleRoot(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod of module %s at or above the working directory", modulePath)
		}
		dir = up
	}
})

// isModuleRoot reports whether the go.mod file at p declares modulePath.
func isModuleRoot(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(mod), `"`) == modulePath
		}
	}
	return false
}

// FixtureDir returns the absolute path of the shared fixture directory,
// ../shared/fixtures beside the repository's root. Whether it exists is
// not checked; Fixture checks.
func FixtureDir(t testing.TB) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("fstest.FixtureDir: %v", err)
	}
	return filepath.Join(filepath.Dir(root), "shared", "fixtures")
}

// Fixture returns the absolute OS path of rel, a slash-separated path in
// the shared fixture directory (FixtureDir); "." names the directory
// itself. When it is missing, Fixture calls Unavailable: the test skips
// outside CI and fails in CI, which always checks the fixtures out.
func Fixture(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(FixtureDir(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		Unavailable(t, "shared fixture %s is missing: %v", rel, err)
	}
	return p
}

// NeedTool returns the path of the program name found in PATH. When there
// is none, NeedTool calls Unavailable: the test skips outside CI and fails
// in CI, whose .ci/run installs every tool the tests compare against.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Unavailable(t, "%s is not installed: %v", name, err)
	}
	return p
}
