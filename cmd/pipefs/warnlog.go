package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// warnHandler is the slog.Handler of the logger the CLI opens pipelines
// with (vfs.Options.Logger): the warnings of the library (a server that
// ignores Range) are written to stderr as "pipefs: warning: message
// key=value ...", one line each; records below slog.LevelWarn are
// dropped.
type warnHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	attrs []slog.Attr
}

func newWarnHandler(w io.Writer) *warnHandler { return &warnHandler{mu: new(sync.Mutex), w: w} }

func (h *warnHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *warnHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("pipefs: ")
	if r.Level >= slog.LevelError {
		b.WriteString("error: ")
	} else {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		if !a.Equal(slog.Attr{}) {
			fmt.Fprintf(&b, " %s=%s", a.Key, a.Value.Resolve())
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *warnHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &warnHandler{mu: h.mu, w: h.w, attrs: append(h.attrs[:len(h.attrs):len(h.attrs)], attrs...)}
}

// WithGroup is not needed by the warnings pipefs logs: groups are
// flattened.
func (h *warnHandler) WithGroup(string) slog.Handler { return h }
