package fstest

import (
	"context"
	"testing"
	"time"
)

// noDeadlineWait bounds a wait of a test that has no deadline (go test
// -timeout 0).
const noDeadlineWait = 10 * time.Minute

// WaitDeadline returns when a test gives up waiting for something that a
// busy machine only delays (a page, a file, a process that ends): a
// little before t's deadline (go test -timeout), so that t fails with its
// own message, which says what it waited for, rather than the test binary
// with a panic. A tenth of the time left, at most 30 s, is kept for that.
func WaitDeadline(t *testing.T) time.Time {
	d, ok := t.Deadline()
	if !ok {
		return time.Now().Add(noDeadlineWait)
	}
	return d.Add(-min(time.Until(d)/10, 30*time.Second))
}

// WaitContext returns a context that ends at WaitDeadline.
func WaitContext(t *testing.T, parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithDeadline(parent, WaitDeadline(t))
}

// pollInterval is how often WaitUntil looks again: often enough, and not
// so often that looking (a tmux process, say) loads a busy machine.
const pollInterval = 50 * time.Millisecond

// WaitUntil calls ok until it reports true; at WaitDeadline t fails,
// saying what it waited for, and what detail reports when it is not nil
// (such as a process's stderr).
func WaitUntil(t *testing.T, what string, ok func() bool, detail func() string) {
	t.Helper()
	start, deadline := time.Now(), WaitDeadline(t)
	for !ok() {
		if time.Now().After(deadline) {
			giveUp(t, what, start, detail)
		}
		time.Sleep(pollInterval)
	}
}

// WaitChan waits for ch to deliver a value, or to be closed, and returns
// what it received; at WaitDeadline t fails as WaitUntil's does.
func WaitChan[T any](t *testing.T, what string, ch <-chan T, detail func() string) T {
	t.Helper()
	start := time.Now()
	timer := time.NewTimer(time.Until(WaitDeadline(t)))
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		giveUp(t, what, start, detail)
		var zero T
		return zero
	}
}

// giveUp fails t after a wait for what that began at start.
func giveUp(t *testing.T, what string, start time.Time, detail func() string) {
	t.Helper()
	msg := ""
	if detail != nil {
		msg = "; " + detail()
	}
	t.Fatalf("gave up waiting for %s after %v%s", what, time.Since(start).Round(time.Second), msg)
}
