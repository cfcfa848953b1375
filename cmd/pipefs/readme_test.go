package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlocks returns the indented code blocks of the README, each as
// its lines without the indent.
func readmeBlocks(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]string
	var cur []string
	prevBlank := true
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "    ") && (prevBlank || cur != nil) {
			cur = append(cur, strings.TrimPrefix(line, "    "))
			continue
		}
		if cur != nil {
			blocks = append(blocks, cur)
			cur = nil
		}
		prevBlank = strings.TrimSpace(line) == ""
	}
	return blocks
}

// runnableRecipe reports whether a recipe line runs here as written: it
// reads the demo archive of testdata and needs no network, no terminal
// and no signal to end.
func runnableRecipe(line string) bool {
	return strings.HasPrefix(line, "pipefs ") && strings.Contains(line, "testdata/") &&
		!strings.Contains(line, "<TAB>") && !strings.HasPrefix(line, "pipefs serve ") && !strings.Contains(line, "://")
}

// TestReadmeRecipes runs, in bash, every recipe of the README that reads
// the demo archive, exactly as written, from a directory that holds a copy
// of testdata, with the pipefs built from this package first in PATH. A
// block that mounts runs whole, as a person pastes it: the mount, then
// the program that reads through it, then the unmount.
func TestReadmeRecipes(t *testing.T) {
	bin := buildCLI(t)
	work := t.TempDir()
	demo, err := os.ReadFile("../../testdata/demo.zip")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(work, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "testdata", "demo.zip"), demo, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, script string) string {
		t.Helper()
		sh := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
		sh.Dir = work
		sh.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "PIPEFS_CACHE_DIR=off")
		out, err := sh.CombinedOutput()
		if err != nil {
			t.Errorf("the README's recipe\n%s\nfailed: %v\n%s", script, err, out)
		}
		return string(out)
	}
	ran, mounts := 0, 0
	for _, block := range readmeBlocks(t) {
		script := strings.Join(block, "\n")
		if strings.HasPrefix(block[0], "mkdir") && strings.Contains(script, "pipefs mount ") {
			mounts++
			t.Run("mount", func(t *testing.T) {
				needFUSE(t)
				dir := strings.Fields(block[0])[2]
				t.Cleanup(func() {
					if mounted(t, dir) {
						exec.Command("fusermount3", "-u", "-z", dir).Run()
						t.Errorf("%s is still mounted after the recipe", dir)
					}
				})
				out := run(t, script)
				if !strings.Contains(out, "pipefs demo archive") {
					t.Errorf("the mount recipe printed %q, want the demo's README.txt", out)
				}
			})
			ran++
			continue
		}
		for _, line := range block {
			if runnableRecipe(line) {
				ran++
				t.Run(line, func(t *testing.T) { run(t, line) })
			}
		}
	}
	if ran < 3 || mounts != 1 {
		t.Errorf("ran %d recipes (%d mounting), want at least 3, one of them the mount", ran, mounts)
	}
}
