package fstest

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// showMax is how many bytes of a value failure messages quote.
const showMax = 48

// show quotes b for a failure message, shortened when long.
func show(b []byte) string {
	if len(b) <= showMax {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q...(%d bytes)", b[:showMax], len(b))
}

// wantPathError checks that err, returned by call, is a *fs.PathError with
// the given Op and Path that matches target (when target is not nil). It
// returns the *fs.PathError, or nil after reporting a failure.
func wantPathError(t *testing.T, call string, err error, op, name string, target error) *fs.PathError {
	t.Helper()
	if err == nil {
		t.Errorf("%s error = nil, want an error matching %v", call, target)
		return nil
	}
	pe, ok := err.(*fs.PathError)
	if !ok {
		t.Errorf("%s error = %v (%T), want a *fs.PathError", call, err, err)
		return nil
	}
	bad := false
	if pe.Op != op {
		t.Errorf("%s error Op = %q, want %q (error %v)", call, pe.Op, op, err)
		bad = true
	}
	if pe.Path != name {
		t.Errorf("%s error Path = %q, want %q (error %v)", call, pe.Path, name, err)
		bad = true
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("%s error = %v, want errors.Is(err, %v)", call, err, target)
		bad = true
	}
	if bad {
		return nil
	}
	return pe
}

// wantIs checks that err, returned by call, matches target.
func wantIs(t *testing.T, call string, err, target error) bool {
	t.Helper()
	if err == nil {
		t.Errorf("%s error = nil, want an error matching %v", call, target)
		return false
	}
	if !errors.Is(err, target) {
		t.Errorf("%s error = %v, want errors.Is(err, %v)", call, err, target)
		return false
	}
	return true
}
