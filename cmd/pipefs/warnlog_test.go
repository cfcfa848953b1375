package main

import (
	"bytes"
	"log/slog"
	"testing"
)

// Warnings logged through log/slog print as the CLI's other warnings do;
// lower levels print nothing.
func TestWarnHandler(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(newWarnHandler(&buf))
	l.Info("not shown")
	l.With("url", "http://h/a.zip").Warn("the server ignores Range requests", "bytes", 315)
	want := "pipefs: warning: the server ignores Range requests url=http://h/a.zip bytes=315\n"
	if got := buf.String(); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}
