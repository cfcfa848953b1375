package vfs

import (
	"context"
	"log/slog"
	"sync"
)

// maxWarnings bounds the warnings one Cache logs (Env.Warn): the last
// one is followed by a record that says further ones are not logged, and
// the Cache remembers no more keys.
const maxWarnings = 64

// discard is the logger of a pipeline opened with no Options.Logger.
var discard = slog.New(slog.DiscardHandler)

// Logger returns the logger of the pipeline's options (Options.Logger),
// or, when there is none, one that discards every record: never nil.
func (env *Env) Logger() *slog.Logger {
	if env == nil || env.Options == nil || env.Options.Logger == nil {
		return discard
	}
	return env.Options.Logger
}

// Warn logs msg and args at slog.LevelWarn with the pipeline's
// Options.Logger, once per key among the pipelines opened with env.Cache:
// a later Warn with an equal key, from this open or another with the same
// Cache, logs nothing. key is comparable, of a type of the driver's own
// package as the Cache's keys are, and names what the warning is about
// (a server, an object). Without Options.Logger, Warn does nothing and
// remembers nothing, so a later open that has a logger still warns. A
// Cache remembers at most 64 keys; the warning past them says that
// further ones are not logged.
func (env *Env) Warn(key any, msg string, args ...any) {
	if env == nil || env.Options == nil || env.Options.Logger == nil {
		return
	}
	l := env.Options.Logger
	w := env.Cache.Resource(warnedKey{}, func() any { return &warned{keys: map[any]bool{}} }).(*warned)
	switch w.first(key) {
	case warnFirst:
		l.Log(context.Background(), slog.LevelWarn, msg, args...)
	case warnLast:
		l.Log(context.Background(), slog.LevelWarn, msg, args...)
		l.Warn("further warnings are not logged", "logged", maxWarnings)
	}
}

// warnedKey keys the warnings logged among the resources of a Cache.
type warnedKey struct{}

// warned holds the keys of the warnings that a Cache logged.
type warned struct {
	mu   sync.Mutex
	keys map[any]bool
}

const (
	warnSeen  = iota // logged before, or past the bound: log nothing
	warnFirst        // log it
	warnLast         // log it, and say that no more will be
)

// first records key and says whether to log it.
func (w *warned) first(key any) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.keys[key] || len(w.keys) >= maxWarnings {
		return warnSeen
	}
	w.keys[key] = true
	if len(w.keys) == maxWarnings {
		return warnLast
	}
	return warnFirst
}
