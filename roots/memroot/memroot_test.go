package memroot_test

import (
	"testing"

	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/memroot"
)

func TestConformance(t *testing.T) {
	files := map[string][]byte{
		"a.txt":         []byte("hello, world\n"),
		"empty":         {},
		"d/b.txt":       []byte("in a directory"),
		"d/e/c.bin":     {0, 1, 2, 3, 255},
		"d/e/odd #1.md": []byte("a name to escape"),
	}
	prefix := fstest.MapFiles(t, files)
	// The three spellings of a key name the same tree.
	for _, scheme := range []string{"memory:/", "memory://", "memory:"} {
		t.Run(scheme, func(t *testing.T) {
			fstest.Run(t, fstest.Case{Pipeline: scheme + prefix + "/", Files: files, Exhaustive: true})
		})
	}
}
