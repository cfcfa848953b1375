package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLsHumanReadable: ls -l --human-readable writes sizes as ls -h does,
// the exact sizes otherwise, and directories as "-" either way.
func TestLsHumanReadable(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int{"small": 999, "kib": 1536, "mib": 3 << 20} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sizes := func(out string) string {
		var s []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			s = append(s, f[0]+" "+f[len(f)-1])
		}
		return strings.Join(s, ", ")
	}
	if got, want := sizes(mustRun(t, "ls", "-l", "--human-readable", dir)), "1.5K kib, 3.0M mib, 999 small, - sub/"; got != want {
		t.Errorf("ls -l --human-readable: %s, want %s", got, want)
	}
	if got, want := sizes(mustRun(t, "ls", "-l", dir)), "1536 kib, 3145728 mib, 999 small, - sub/"; got != want {
		t.Errorf("ls -l: %s, want %s", got, want)
	}
}
