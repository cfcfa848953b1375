package remote

import "testing"

func TestParseContentRange(t *testing.T) {
	for _, tc := range []struct {
		name             string
		in               string
		start, end, size int64
		ok               bool
	}{
		{name: "whole", in: "bytes 0-9/10", start: 0, end: 10, size: 10, ok: true},
		{name: "middle", in: " bytes 5-6/100 ", start: 5, end: 7, size: 100, ok: true},
		{name: "unknown size", in: "bytes 3-3/*", start: 3, end: 4, size: -1, ok: true},
		{name: "past the size", in: "bytes 0-10/10"},
		{name: "reversed", in: "bytes 5-4/10"},
		{name: "negative", in: "bytes -1-4/10"},
		{name: "no unit", in: "0-9/10"},
		{name: "no size", in: "bytes 0-9"},
		{name: "no dash", in: "bytes 09/10"},
		{name: "unsatisfied", in: "bytes */10"},
		{name: "bad size", in: "bytes 0-9/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, end, size, ok := ParseContentRange(tc.in)
			if start != tc.start || end != tc.end || size != tc.size || ok != tc.ok {
				t.Errorf("ParseContentRange(%q) = %d, %d, %d, %v, want %d, %d, %d, %v",
					tc.in, start, end, size, ok, tc.start, tc.end, tc.size, tc.ok)
			}
		})
	}
}
