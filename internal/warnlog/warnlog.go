// Package warnlog is the slog.Handler that the pipefs command opens its
// pipelines with (vfs.Options.Logger): the warnings of the library, such
// as a server that ignores Range requests, are written as lines a person
// reads among the command's other messages.
//
// The contract: a record at slog.LevelWarn or above is written as one
// line, "pipefs: warning: message key=value ...\n" ("pipefs: error: ..."
// at slog.LevelError or above), with the attributes of WithAttrs first,
// then the record's, in order; values are resolved (slog.LogValuer) and
// formatted with %s. Records below slog.LevelWarn are dropped. Groups
// are flattened: WithGroup returns the handler unchanged. Each line is
// written with a single Write, and a handler and all those derived from
// it by WithAttrs share one lock, so lines from concurrent goroutines
// never interleave. Handle returns the writer's error.
package warnlog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// Handler is a slog.Handler that writes warnings and errors as
// "pipefs: warning: ..." lines (see the package doc). Make one with New.
type Handler struct {
	mu    *sync.Mutex
	w     io.Writer
	attrs []slog.Attr
}

// New returns a Handler that writes to w.
func New(w io.Writer) *Handler { return &Handler{mu: new(sync.Mutex), w: w} }

// Enabled reports whether l is slog.LevelWarn or above.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

// Handle writes r as one line.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
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

// WithAttrs returns a Handler that writes attrs before a record's own
// attributes; it shares h's writer and lock.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{mu: h.mu, w: h.w, attrs: append(h.attrs[:len(h.attrs):len(h.attrs)], attrs...)}
}

// WithGroup returns h: the warnings pipefs logs need no groups, and
// their attributes are flattened.
func (h *Handler) WithGroup(string) slog.Handler { return h }
