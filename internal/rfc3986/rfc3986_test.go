package rfc3986

import "testing"

func TestRemoveDotSegments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"/", "/"},
		{"/a/b/c/./../../g", "/a/g"}, // section 5.2.4's examples
		{"mid/content=5/../6", "mid/6"},
		{"/../../x", "/x"},
		{"/a/..", "/"},
		{"/a/.", "/a/"},
		{"/a//../x", "/a/x"},
		{"/%2E%2E/x", "/%2E%2E/x"},
		{".", ""},
		{"a/..", ""},
		{"../a", "a"},
	} {
		if got := RemoveDotSegments(tc.in); got != tc.want {
			t.Errorf("RemoveDotSegments(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		base, ref    string
		hasAuthority bool
		want         string
	}{
		{"/b/c/d;p", "g", true, "/b/c/g"},
		{"", "g", true, "/g"},
		{"", "g", false, "g"},
		{"a", "g", false, "g"},
		{"a/b", "g", false, "a/g"},
	} {
		if got := Merge(tc.base, tc.ref, tc.hasAuthority); got != tc.want {
			t.Errorf("Merge(%q, %q, %v) = %q, want %q", tc.base, tc.ref, tc.hasAuthority, got, tc.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		keep func(byte) bool
		want string
	}{
		{"tag.it works!", IsRegName, "tag.it%20works!"},
		{"a:b@c/d", IsRegName, "a%3Ab%40c%2Fd"},
		{"a:b@c/d", IsPchar, "a:b@c%2Fd"},
		{"%|#?\u00e9\x00\x7f", IsPchar, "%25%7C%23%3F%C3%A9%00%7F"},
		{"", IsPchar, ""},
	} {
		if got := Escape(tc.in, tc.keep); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// 66 unreserved characters, 11 sub-delims, ":" and "@".
	var regName, pchar int
	for c := range 256 {
		if IsRegName(byte(c)) {
			regName++
		}
		if IsPchar(byte(c)) {
			pchar++
		}
	}
	if regName != 77 || pchar != 79 {
		t.Errorf("%d bytes are reg-name characters and %d pchars, want 77 and 79", regName, pchar)
	}
}
