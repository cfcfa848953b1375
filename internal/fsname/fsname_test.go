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

func TestValidBase(t *testing.T) {
	for s, want := range map[string]bool{"a": true, "a.b": true, "": false, ".": false, "..": false, "a/b": false} {
		if got := ValidBase(s); got != want {
			t.Errorf("ValidBase(%q) = %v, want %v", s, got, want)
		}
	}
}
