package fstest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

func TestRunFile(t *testing.T) {
	for name, data := range sample() {
		prefix := fstest.MapFiles(t, map[string][]byte{"f": data})
		t.Run(name, func(t *testing.T) {
			fstest.RunFile(t, fstest.FileCase{Pipeline: "memory:/" + prefix + "/f", Data: data})
		})
	}
}

func TestFixture(t *testing.T) {
	dir := fstest.FixtureDir(t)
	if !filepath.IsAbs(dir) || filepath.Base(dir) != "fixtures" || filepath.Base(filepath.Dir(dir)) != "shared" {
		t.Errorf("FixtureDir() = %q, want an absolute path ending in shared/fixtures", dir)
	}
	got := fstest.Fixture(t, ".")
	if _, err := os.Stat(got); err != nil {
		t.Errorf("Fixture(%q) = %q, which does not exist: %v", ".", got, err)
	}
}

// TestUnavailableInCI checks that a missing fixture or tool fails a test
// in CI and skips it elsewhere, with a child test run under each setting.
func TestUnavailableInCI(t *testing.T) {
	for _, ci := range []string{"", "false", "1", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			want := ci == "1" || ci == "true"
			if got := fstest.InCI(); got != want {
				t.Errorf("InCI() with CI=%q = %v, want %v", ci, got, want)
			}
			for what, need := range map[string]func(tb *recorder){
				"Fixture":  func(r *recorder) { fstest.Fixture(r, "no/such/fixture") },
				"NeedTool": func(r *recorder) { fstest.NeedTool(r, "pipefs-no-such-tool") },
			} {
				r := &recorder{TB: t}
				r.run(func() { need(r) })
				if r.failed != want || r.skipped == want {
					t.Errorf("%s of a missing thing with CI=%q: failed %v, skipped %v; want failed %v, skipped %v",
						what, ci, r.failed, r.skipped, want, !want)
				}
			}
		})
	}
	if p := fstest.NeedTool(t, "go"); !filepath.IsAbs(p) {
		t.Errorf("NeedTool(%q) = %q, want an absolute path", "go", p)
	}
}

// recorder is a testing.TB whose Fatal and Skip are recorded instead of
// ending the test (they stop the function that run runs).
type recorder struct {
	testing.TB
	failed, skipped bool
}

type stop struct{}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true; panic(stop{}) }
func (r *recorder) Fatal(...any)          { r.failed = true; panic(stop{}) }
func (r *recorder) Skip(...any)           { r.skipped = true; panic(stop{}) }
func (r *recorder) Skipf(string, ...any)  { r.skipped = true; panic(stop{}) }
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func (r *recorder) run(f func()) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stop); !ok {
				panic(v)
			}
		}
	}()
	f()
}
