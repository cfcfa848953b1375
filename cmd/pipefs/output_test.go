package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingWriter counts the Write calls that reach it.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestOutputBuffered checks that a listing to a pipe or file is written in
// a few large writes, not one per line, and that nothing is lost.
func TestOutputBuffered(t *testing.T) {
	var ents []entry
	for i := range 5000 {
		ents = append(ents, entry{name: fmt.Sprintf("d/f%05d.txt", i), body: "x"})
	}
	name := filepath.Join(t.TempDir(), "many.zip")
	if err := os.WriteFile(name, zipOf(t, ents...), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout countingWriter
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"ls", "-R", "file:" + name + "|zip:"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Count(stdout.String(), "\n")
	if lines < 5000 {
		t.Fatalf("%d lines, want at least 5000", lines)
	}
	if want := len(stdout.String())/outputBuffer + 1; stdout.writes > want {
		t.Errorf("%d writes for %d bytes, want at most %d", stdout.writes, stdout.Len(), want)
	}
}

// TestDevNullIsNotATerminal checks that output to /dev/null, a character
// device, is not taken for a terminal.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || newOutput(f).terminal() {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
}
