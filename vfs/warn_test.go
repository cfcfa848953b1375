package vfs_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// warnKey keys the warnings of the tests.
type warnKey struct{ n int }

// Env.Warn logs once per key and Cache, with Options.Logger only, and up
// to its bound.
func TestEnvWarn(t *testing.T) {
	byDefault := recordDefaultLogger(t)
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	one, two := vfs.NewCache(0), vfs.NewCache(0)
	env := func(c *vfs.Cache, l *slog.Logger) *vfs.Env {
		return vfs.NewEnv("memory:x", "memory", &vfs.Options{Cache: c, Logger: l})
	}
	lines := func() int { return strings.Count(buf.String(), "\n") }

	if env(one, nil).Logger() == nil || (*vfs.Env)(nil).Logger() == nil {
		t.Fatal("Env.Logger is nil without Options.Logger")
	}
	env(one, nil).Warn(warnKey{0}, "not logged")
	env(one, nil).Logger().Warn("not logged either")
	env(one, logger).Warn(warnKey{0}, "first")
	env(one, logger).Warn(warnKey{0}, "again")
	env(two, logger).Warn(warnKey{0}, "another cache")
	if got := buf.String(); lines() != 2 || !strings.Contains(got, "msg=first") || !strings.Contains(got, "msg=\"another cache\"") || !strings.Contains(got, "level=WARN") {
		t.Errorf("logged:\n%s\nwant the first warning of each cache, and no other", got)
	}
	for i := range 100 {
		env(one, logger).Warn(warnKey{i}, "many")
	}
	if n := strings.Count(buf.String(), "msg=many"); n != 63 || lines() != 66 || !strings.Contains(buf.String(), "further warnings are not logged") {
		t.Errorf("a hundred keys: %d logged, %d lines; want 63 (64 in all with the first) and a last line that says so:\n%s", n, lines(), buf.String())
	}
	if byDefault.Len() != 0 {
		t.Errorf("log/slog's default logger got:\n%s", byDefault)
	}
}

// recordDefaultLogger sends log/slog's default logger to a buffer until
// the test ends.
func recordDefaultLogger(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}
