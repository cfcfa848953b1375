package warnlog

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// Warnings print as the CLI's other warnings do; lower levels print
// nothing.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(New(&buf))
	l.Info("not shown")
	l.With("url", "http://h/a.zip").Warn("the server ignores Range requests", "bytes", 315)
	want := "pipefs: warning: the server ignores Range requests url=http://h/a.zip bytes=315\n"
	if got := buf.String(); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

// Errors say "error:", groups are flattened, empty attributes are left
// out, and LogValuers are resolved.
func TestHandlerLevelsAndAttrs(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(New(&buf))
	l.Debug("not shown")
	l.WithGroup("g").Error("bad", slog.Attr{}, "v", valuer("resolved"))
	want := "pipefs: error: bad v=resolved\n"
	if got := buf.String(); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

type valuer string

func (v valuer) LogValue() slog.Value { return slog.StringValue(string(v)) }

// Two loggers derived from one do not share their attributes.
func TestHandlerWithAttrsDoesNotAlias(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(New(&buf)).With("a", 1)
	x, y := base.With("x", 2), base.With("y", 3)
	x.Warn("m")
	y.Warn("m")
	want := "pipefs: warning: m a=1 x=2\npipefs: warning: m a=1 y=3\n"
	if got := buf.String(); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

// Lines from concurrent goroutines, through derived loggers, do not
// interleave (run with -race to also check the lock).
func TestHandlerConcurrent(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(New(&buf))
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			base.With("i", i).Warn(strings.Repeat("x", 100))
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "pipefs: warning: "+strings.Repeat("x", 100)+" i=") {
			t.Errorf("line %q", line)
		}
	}
}

// Handle returns the writer's error.
func TestHandlerWriteError(t *testing.T) {
	errFull := errors.New("disk full")
	h := New(failWriter{errFull})
	r := slog.NewRecord(time.Time{}, slog.LevelWarn, "m", 0)
	if err := h.Handle(t.Context(), r); !errors.Is(err, errFull) {
		t.Errorf("Handle: %v, want %v", err, errFull)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }
