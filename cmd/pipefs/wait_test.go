package main

import (
	"context"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
)

// The waits of the tests: see fstest.WaitDeadline and the functions
// after it.

func waitDeadline(t *testing.T) time.Time { return fstest.WaitDeadline(t) }

func waitContext(t *testing.T, parent context.Context) (context.Context, context.CancelFunc) {
	return fstest.WaitContext(t, parent)
}

func waitUntil(t *testing.T, what string, ok func() bool, detail func() string) {
	t.Helper()
	fstest.WaitUntil(t, what, ok, detail)
}

func waitChan[T any](t *testing.T, what string, ch <-chan T, detail func() string) T {
	t.Helper()
	return fstest.WaitChan(t, what, ch, detail)
}
