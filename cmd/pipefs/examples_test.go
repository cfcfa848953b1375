package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasExamples checks that the help of every command a
// person can run shows how to run it.
func TestEveryCommandHasExamples(t *testing.T) {
	root, _ := newRoot()
	root.InitDefaultCompletionCmd()
	for _, cmd := range root.Commands() {
		if cmd.Hidden || cmd.Name() == "help" {
			continue
		}
		for _, c := range append([]*cobra.Command{cmd}, cmd.Commands()...) {
			if c.Hidden || c.Name() == "help" || !c.Runnable() {
				continue
			}
			if !strings.Contains(c.Example, "pipefs ") {
				t.Errorf("pipefs %s --help has no example", strings.TrimPrefix(c.CommandPath(), "pipefs "))
			}
		}
	}
}

// TestExamplesRun runs, in a real shell, every example line of every
// command's help that reads the demo archive shipped in testdata, from a
// directory holding a copy of testdata, as a person who copies the line
// would. Commands that run until a signal (serve, mount) are left out.
func TestExamplesRun(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nexec env " + runMainEnv + "=1 '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "pipefs"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
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

	root, _ := newRoot()
	ran := 0
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, c := range cmd.Commands() {
			walk(c)
		}
		if cmd.Annotations[stopsOnSignal] != "" {
			return
		}
		for _, line := range strings.Split(cmd.Example, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "pipefs ") || !strings.Contains(line, "testdata/") {
				continue
			}
			ran++
			sh := exec.Command("bash", "-o", "pipefail", "-c", line)
			sh.Dir = work
			sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"PIPEFS_CACHE_DIR=off")
			if out, err := sh.CombinedOutput(); err != nil {
				t.Errorf("the example of %q, %s: %v\n%s", cmd.CommandPath(), line, err, out)
			}
		}
	}
	walk(root)
	t.Logf("ran %d examples", ran)
	if ran < 5 {
		t.Errorf("ran %d examples on testdata, want at least one for each of ls, tree, cat, cp, stat", ran)
	}
}
