package vfs_test

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// TestSidecarMode: the modes' names parse back, anything else is
// fs.ErrInvalid, and so is a mode out of range in Options.
func TestSidecarMode(t *testing.T) {
	for _, m := range []vfs.SidecarMode{vfs.SidecarOff, vfs.SidecarRead, vfs.SidecarWrite} {
		if got, err := vfs.ParseSidecarMode(" " + m.String() + " "); err != nil || got != m {
			t.Errorf("ParseSidecarMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if got, err := vfs.ParseSidecarMode("WRITE"); err != nil || got != vfs.SidecarWrite {
		t.Errorf("ParseSidecarMode(WRITE) = %v, %v", got, err)
	}
	if _, err := vfs.ParseSidecarMode("on"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ParseSidecarMode(on): %v", err)
	}
	if _, err := vfs.OpenFS(context.Background(), "memory:/", &vfs.Options{Sidecar: 3}); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Options.Sidecar 3: %v", err)
	}
}
