package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]int64{
		"1100": 1100, "-1": -1, "none": -1, "Unlimited": -1, "0": 0,
		"2T": 2 << 40, "2t": 2 << 40, "64KiB": 64 << 10, "3MB": 3 << 20, "1G": 1 << 30, "100B": 100,
	} {
		if got, err := parseLimit(in); err != nil || got != want {
			t.Errorf("parseLimit(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "1.5G", "9E", "10iB", "1 G G"} {
		if got, err := parseLimit(in); err == nil {
			t.Errorf("parseLimit(%q) = %d, want an error", in, got)
		}
	}
}

// TestLimitFlags checks that every field of vfs.Limits has a flag, that
// flags and PIPEFS_LIMITS set it, and that flags win.
func TestLimitFlags(t *testing.T) {
	flags := limitFields()
	if n := reflect.TypeFor[vfs.Limits]().NumField(); len(flags) != n {
		t.Errorf("%d limit flags for %d fields of vfs.Limits", len(flags), n)
	}
	root, g := newRoot()
	for _, f := range flags {
		if root.PersistentFlags().Lookup(f.name) == nil {
			t.Errorf("no flag --%s for Limits.%s", f.name, f.field)
		}
	}
	for n, want := range map[int64]string{1100: "1100", 1 << 40: "1T", 64 << 20: "64M", 1536: "1536", -1: "-1"} {
		if got := formatLimit(n); got != want {
			t.Errorf("formatLimit(%d) = %q, want %q", n, got, want)
		}
		if back, err := parseLimit(formatLimit(n)); err != nil || back != n {
			t.Errorf("parseLimit(formatLimit(%d)) = %d, %v", n, back, err)
		}
	}
	if flagName("MaxFileSize") != "max-file-size" {
		t.Errorf("flagName(MaxFileSize) = %q", flagName("MaxFileSize"))
	}

	t.Setenv(limitsEnv, "MaxRatio=-1, MaxFileSize=2T,max-depth=7,MaxEntries=5")
	root.SetArgs([]string{"--max-entries=9", "resolve", "file:/x"})
	root.SetOut(new(bytes.Buffer))
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	want := vfs.Limits{MaxRatio: -1, MaxFileSize: 2 << 40, MaxDepth: 7, MaxEntries: 9}
	if g.limits != want {
		t.Errorf("limits = %+v, want %+v", g.limits, want)
	}

	t.Setenv(limitsEnv, "MaxRatio")
	if r := runCLI(t, "resolve", "file:/x"); r.code != exitUsage || !strings.Contains(r.stderr, limitsEnv) {
		t.Errorf("a bad %s: exit %d, stderr %q", limitsEnv, r.code, r.stderr)
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
	t.Setenv(limitsEnv, "MaxRatio=10,RatioFloor=1")
	if r := runCLI(t, "cat", arg); r.code != exitError || r.stdout != "" {
		t.Errorf("cat over %s=MaxRatio=10,RatioFloor=1: exit %d, %d bytes out", limitsEnv, r.code, len(r.stdout))
	}
	if r := runCLI(t, "--max-ratio=-1", "cat", arg); r.code != 0 || len(r.stdout) != 1<<20 {
		t.Errorf("cat with --max-ratio=-1 over %s: exit %d, %d bytes out; stderr %q", limitsEnv, r.code, len(r.stdout), r.stderr)
	}
}
