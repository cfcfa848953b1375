package listfmt_test

import (
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/internal/listfmt"
)

func TestMode(t *testing.T) {
	for _, tc := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "-rw-r--r--"},
		{fs.ModeDir | 0o755, "drwxr-xr-x"},
		{fs.ModeSymlink | 0o777, "lrwxrwxrwx"},
	} {
		if got := listfmt.Mode(tc.mode); got != tc.want {
			t.Errorf("Mode(%v) = %q, want %q", tc.mode, got, tc.want)
		}
	}
}
