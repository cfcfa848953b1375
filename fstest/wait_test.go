package fstest_test

import (
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

func TestWait(t *testing.T) {
	calls := 0
	fstest.WaitUntil(t, "the third call", func() bool { calls++; return calls == 3 }, nil)
	if calls != 3 {
		t.Errorf("WaitUntil returned after %d calls, want 3", calls)
	}
	ch := make(chan int, 1)
	ch <- 7
	if got := fstest.WaitChan(t, "the value", ch, nil); got != 7 {
		t.Errorf("WaitChan = %d, want 7", got)
	}
	if dl, ok := t.Deadline(); ok {
		if d := fstest.WaitDeadline(t); !d.Before(dl) {
			t.Errorf("WaitDeadline = %v, not before the test's deadline %v", d, dl)
		}
	}
}
