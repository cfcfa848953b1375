package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/copier"
	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/internal/optflags"
)

// TestCpContinueRecipe runs the README's recipe in a real terminal, a
// tmux pane: pipefs cp -R --continue 'run.zip|zip:run1/' run1, stopped by
// Ctrl-C in the middle of a file (the server holds the request that
// reaches its middle until the first run is interrupted), then run again,
// and once more after it completed. Each run continues the copy in run1,
// never run1/run1, and the result is what bsdtar extracts, by diff -r.
func TestCpContinueRecipe(t *testing.T) {
	bsdtar := fstest.NeedTool(t, "bsdtar")
	diff := fstest.NeedTool(t, "diff")
	// A top level of files and directories, one of which is named as the
	// copy; the last file, stored, is where the first run stops.
	const bigSize = 4 << 20
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for _, e := range []struct {
		name string
		body []byte
	}{
		{"run1/", nil},
		{"run1/a.txt", []byte("alpha\n")},
		{"run1/run1/", nil},
		{"run1/run1/inner.txt", []byte("inner\n")},
		{"run1/sub/", nil},
		{"run1/sub/b.bin", fstest.RandomBytes(300<<10, 1)},
		{"run1/z.bin", fstest.RandomBytes(bigSize, 2)},
	} {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store, Modified: modTime}
		h.SetMode(0o644)
		if strings.HasSuffix(e.name, "/") {
			h.SetMode(0o755 | os.ModeDir)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	data := zbuf.Bytes()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var held int64
	for _, f := range zr.File {
		if f.Name == "run1/z.bin" {
			off, err := f.DataOffset()
			if err != nil {
				t.Fatal(err)
			}
			held = off + bigSize/2
		}
	}

	dir := t.TempDir()
	archive := filepath.Join(dir, "run.zip")
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "want")
	if err := os.Mkdir(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bsdtar, "-x", "-f", archive, "-C", want).CombinedOutput(); err != nil {
		t.Fatalf("bsdtar: %v\n%s", err, out)
	}
	release := make(chan struct{})
	url := heldServer(t, map[string]heldFile{
		"run.zip": {func() io.ReadSeeker { return bytes.NewReader(data) }, held, release},
	})
	src := url + "/run.zip|zip:run1/"

	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(work, "run1")
	term := newTerminal(t, 120, 40)
	// run runs the recipe in work, off the disk cache, one file at a
	// time; the shell then prints "EXIT=status".
	run := func(t *testing.T) {
		t.Helper()
		term.start(t, "cd "+listfmt.ShellQuote(work)+" && "+optflags.CacheDirEnv+"=off "+
			cliLine(t, "cp", "-R", "--continue", "--concurrency", "1", src, "run1")+"; echo EXIT=$?")
	}
	// check compares the copy with bsdtar's extraction, and finds no
	// file of a copy in progress left.
	check := func(t *testing.T) {
		t.Helper()
		if out, err := exec.Command(diff, "-r", filepath.Join(want, "run1"), copyDir).CombinedOutput(); err != nil {
			t.Errorf("diff -r of bsdtar's extraction and the copy: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(copyDir, "run1", "run1")); err == nil {
			t.Errorf("the copy went to run1/run1")
		}
		filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
			if strings.HasSuffix(p, copier.PartialSuffix) || strings.HasSuffix(p, copier.SourceSuffix) {
				t.Errorf("a complete copy left %s", p)
			}
			return nil
		})
	}

	t.Run("interrupted", func(t *testing.T) {
		run(t)
		partial := filepath.Join(copyDir, "z.bin"+copier.SourceSuffix)
		waitUntil(t, "the copy of z.bin to start, "+partial, func() bool {
			_, err := os.Stat(partial)
			return err == nil
		}, func() string { return "the screen shows:\n" + term.screen(t) })
		term.press(t, "C-c")
		screen := term.wait(t)
		if lines := screenLines(screen); len(lines) == 0 || lines[len(lines)-1] != "EXIT=130" {
			t.Fatalf("after Ctrl-C the screen shows:\n%s\nwant EXIT=130", screen)
		}
		for _, name := range []string{copyDir + copier.SourceSuffix, filepath.Join(copyDir, "z.bin"+copier.PartialSuffix)} {
			if _, err := os.Stat(name); err != nil {
				t.Errorf("the interrupted copy keeps no %s: %v", name, err)
			}
		}
		if b, err := os.ReadFile(filepath.Join(copyDir, "sub", "b.bin")); err != nil || len(b) != 300<<10 {
			t.Errorf("the file copied before the interrupt: %d bytes, %v", len(b), err)
		}
	})
	close(release)

	for _, name := range []string{"again", "complete"} {
		t.Run(name, func(t *testing.T) {
			run(t)
			screen := term.wait(t)
			if lines := screenLines(screen); len(lines) == 0 || lines[len(lines)-1] != "EXIT=0" {
				t.Fatalf("the screen shows:\n%s\nwant EXIT=0", screen)
			}
			check(t)
		})
	}
}
