package driver

import "testing"

func TestSafePath(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"a", true},
		{"a/b.txt", true},
		{"ab:c", true},
		{"1:/x", true},
		{".", false},
		{"", false},
		{"../a", false},
		{"a/../b", false},
		{"/a", false},
		{"a/", false},
		{"a//b", false},
		{`a\b`, false},
		{"a\x00b", false},
		{"C:/x", false},
		{"c:x", false},
		{"\xff", false},
	} {
		if got := SafePath(tc.name); got != tc.want {
			t.Errorf("SafePath(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
