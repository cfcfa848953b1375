package vfs

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"
)

// checkCanonical checks that p, a result of Parse or Resolve, is canonical:
// its text parses back to p and prints the same.
func checkCanonical(t *testing.T, what string, p Pipeline) {
	t.Helper()
	text := p.String()
	q, err := Parse(text)
	if err != nil {
		t.Fatalf("%s = %q, which does not parse: %v", what, text, err)
	}
	if !reflect.DeepEqual(p, q) {
		t.Fatalf("%s = %#v, but Parse(%q) = %#v", what, p, text, q)
	}
	if q.String() != text {
		t.Fatalf("Parse(%q).String() = %q", text, q.String())
	}
}

func checkError(t *testing.T, what string, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || !errors.Is(err, fs.ErrInvalid) || se.Msg == "" {
		t.Fatalf("%s error %#v is not a complete *SyntaxError", what, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseTests {
		f.Add(tc.in)
	}
	for _, tc := range resolveTests {
		f.Add(tc.base + "|" + tc.ref)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			checkError(t, "Parse", err)
			return
		}
		checkCanonical(t, "Parse", p)
		for _, u := range p {
			// The accessors never fail or panic on a parsed sub-URL.
			_ = u.Key()
			_ = u.DecodedPath()
			_, _ = u.Host(), u.Port()
			_, _ = u.Bucket(), u.Version()
			_, _ = u.Range()
			_ = u.Pointer()
			_, _ = u.Kind(), u.BaseKind()
		}
	})
}

func FuzzResolve(f *testing.F) {
	for _, tc := range resolveTests {
		f.Add(tc.base, tc.ref)
	}
	for _, b := range rfc3986Bases {
		for _, tc := range rfc3986Tests {
			f.Add(b.base, tc.ref)
		}
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		p, err := Parse(base)
		if err != nil {
			return
		}
		r, err := p.Resolve(ref)
		if err != nil {
			checkError(t, "Resolve", err)
		} else {
			checkCanonical(t, "Resolve", r)
		}
		if p.String() != MustParse(base).String() {
			t.Fatalf("Resolve changed its base")
		}

		// Join of a valid name below the innermost sub-URL re-parses to
		// itself, when that scheme has names.
		last := p[len(p)-1]
		info, _ := lookupScheme(last.Scheme)
		if !fs.ValidPath(ref) || info.path == pathNone || last.Scheme == "byte-range" {
			return
		}
		j := p.Append()
		j[len(j)-1] = last.Join(ref)
		checkCanonical(t, "Join", j)
	})
}
