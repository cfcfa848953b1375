package fsname

import "testing"

func TestSplitJoin(t *testing.T) {
	for _, tc := range []struct {
		name, dir, base string
	}{
		{name: "a", dir: ".", base: "a"},
		{name: "a/b", dir: "a", base: "b"},
		{name: "a/b/c.txt", dir: "a/b", base: "c.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if dir, base := Split(tc.name); dir != tc.dir || base != tc.base {
				t.Errorf("Split(%q) = %q, %q, want %q, %q", tc.name, dir, base, tc.dir, tc.base)
			}
			if got := Parent(tc.name); got != tc.dir {
				t.Errorf("Parent(%q) = %q, want %q", tc.name, got, tc.dir)
			}
			if got := Join(tc.dir, tc.base); got != tc.name {
				t.Errorf("Join(%q, %q) = %q, want %q", tc.dir, tc.base, got, tc.name)
			}
		})
	}
}
