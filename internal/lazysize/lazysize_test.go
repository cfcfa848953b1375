package lazysize

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

func TestSize(t *testing.T) {
	tests := []struct {
		name   string
		errs   []error // what the successive passes return
		sizes  []int64 // what Size returns each time
		passes int
	}{
		{name: "once", errs: []error{nil}, sizes: []int64{42, 42, 42}, passes: 1},
		{name: "corrupt is remembered", errs: []error{driver.Corruptf("bad")}, sizes: []int64{1000, 1000}, passes: 1},
		{name: "limit is remembered", errs: []error{driver.Limitf("big")}, sizes: []int64{1000, 1000}, passes: 1},
		{name: "I/O error is retried", errs: []error{errors.New("net"), nil}, sizes: []int64{1000, 42, 42}, passes: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			passes := 0
			size := func(ctx context.Context) (int64, error) {
				if ctx.Err() != nil {
					t.Error("the pass runs with a cancelled context")
				}
				err := tc.errs[min(passes, len(tc.errs)-1)]
				passes++
				return 42, err
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // the open's context may end before Size is asked
			i := New(ctx, "f", 0o644, time.Time{}, nil, size, nil, 1000)
			for k, want := range tc.sizes {
				if got := i.Size(); got != want {
					t.Errorf("call %d: Size() = %d, want %d", k, got, want)
				}
			}
			if passes != tc.passes {
				t.Errorf("%d passes, want %d", passes, tc.passes)
			}
		})
	}
}

func TestKnown(t *testing.T) {
	i := New(context.Background(), "f", 0, time.Time{}, nil,
		func(context.Context) (int64, error) { t.Error("a pass ran although the size was known"); return 0, nil },
		func() int64 { return 7 }, 1000)
	if n, ok := i.Known(); !ok || n != 7 || i.Size() != 7 || i.Err() != nil {
		t.Errorf("Known() = %d, %v; Size() = %d", n, ok, i.Size())
	}
}
