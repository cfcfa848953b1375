package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyArg: an empty argument names nothing, as it names nothing to
// coreutils ls, which cannot access it: each command fails with exit status 1 and
// an error that says so, instead of opening the current directory; ls
// given other arguments too lists them.
func TestEmptyArg(t *testing.T) {
	if _, err := parseArg(""); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("parseArg(\"\") = %v, want fs.ErrNotExist", err)
	}
	for _, args := range [][]string{{"ls"}, {"ls", "-l"}, {"explain"}, {"stat"}, {"cat"}, {"resolve"}} {
		r := runCLI(t, append(args, "")...)
		if r.code != exitError || r.stdout != "" || !strings.HasPrefix(r.stderr, "pipefs: cannot access '': ") {
			t.Errorf("pipefs %s '': exit %d, stdout %q, stderr %q; want exit 1, nothing listed, cannot access ''",
				strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "ls", "", dir)
	if r.code != exitError || r.stdout != dir+":\nf.txt\n" || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("ls '' DIR: exit %d, stdout %q, stderr %q; want exit 1, DIR listed, one error", r.code, r.stdout, r.stderr)
	}
}
