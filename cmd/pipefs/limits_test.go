package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/internal/optflags"
	"github.com/pipefs/pipefs/vfs"
)

// TestLimitFlags checks that the command has the limit flags, that
// flags and PIPEFS_LIMITS set the limits, and that flags win.
func TestLimitFlags(t *testing.T) {
	root, g := newRoot()
	for _, name := range []string{"max-ratio", "max-file-size", "max-entries", "ratio-floor"} {
		if root.PersistentFlags().Lookup(name) == nil {
			t.Errorf("no flag --%s", name)
		}
	}
	t.Setenv(optflags.LimitsEnv, "MaxRatio=-1, MaxFileSize=2T,max-depth=7,MaxEntries=5")
	root.SetArgs([]string{"--max-entries=9", "resolve", "file:/x"})
	root.SetOut(new(bytes.Buffer))
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	want := vfs.Limits{MaxRatio: -1, MaxFileSize: 2 << 40, MaxDepth: 7, MaxEntries: 9}
	if got := g.opts.Limits(); got != want {
		t.Errorf("limits = %+v, want %+v", got, want)
	}

	t.Setenv(optflags.LimitsEnv, "MaxRatio")
	if r := runCLI(t, "resolve", "file:/x"); r.code != exitUsage || !strings.Contains(r.stderr, optflags.LimitsEnv) {
		t.Errorf("a bad %s: exit %d, stderr %q", optflags.LimitsEnv, r.code, r.stderr)
	}
}

// TestLimitError checks that a limit error names the flag that lifts it,
// that the flag and the variable lift it, and that cat wrote nothing of
// the file that failed.
func TestLimitError(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	name := filepath.Join(t.TempDir(), "zeros.gz")
	if err := os.WriteFile(name, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	arg := name + "|gzip:"
	// The ratio applies past Limits.RatioFloor (1 GiB by default): a
	// floor of 1 byte makes a ratio of 10 refuse this 1 MiB of zeros.
	r := runCLI(t, "--max-ratio=10", "--ratio-floor=1", "cat", arg)
	if r.code != exitError || !strings.Contains(r.stderr, "Limits.MaxRatio") || !strings.Contains(r.stderr, "--max-ratio=") {
		t.Errorf("cat over --max-ratio: exit %d, stderr %q; want 1 and a message naming --max-ratio", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("cat over a limit wrote %d bytes to stdout", len(r.stdout))
	}
	t.Setenv(optflags.LimitsEnv, "MaxRatio=10,RatioFloor=1")
	if r := runCLI(t, "cat", arg); r.code != exitError || r.stdout != "" {
		t.Errorf("cat over %s=MaxRatio=10,RatioFloor=1: exit %d, %d bytes out", optflags.LimitsEnv, r.code, len(r.stdout))
	}
	if r := runCLI(t, "--max-ratio=-1", "cat", arg); r.code != 0 || len(r.stdout) != 1<<20 {
		t.Errorf("cat with --max-ratio=-1 over %s: exit %d, %d bytes out; stderr %q", optflags.LimitsEnv, r.code, len(r.stdout), r.stderr)
	}
}
