package arcp

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that what it accepts prints
// back as it was written (the scheme in lower case) and parses to the same
// URI, and that Name and Resolve keep to the archive of the URI.
func FuzzParse(f *testing.F) {
	for _, tc := range draftURIs {
		f.Add(tc.uri, "../../x")
	}
	for _, s := range []string{
		"arcp://a/b/c/d;p?q",
		"ARCP://UUID,2A47C495-AC70-4ED1-850B-8800A57618CF/x",
		"arcp://name,a%20b.zip/x%20y?q=1&r#frag",
		"arcp://user@[::1]:8/x",
		"arcp://a//b/%2E%2E/..",
		"arcp://ni,sha-256;abc/x?",
	} {
		f.Add(s, "g;x=1/../y")
		f.Add(s, "//name,other/x")
		f.Add(s, "?y#s")
	}
	f.Fuzz(func(t *testing.T, s, ref string) {
		u, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q): %v does not match ErrSyntax", s, err)
			}
			return
		}
		text := u.String()
		if want := "arcp" + s[4:]; text != want {
			t.Fatalf("Parse(%q).String() = %q, want %q", s, text, want)
		}
		v, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) (from %q): %v", text, s, err)
		}
		if *v != *u {
			t.Fatalf("Parse(%q) = %+v, Parse(String()) = %+v", s, *u, *v)
		}
		if name, err := u.Name(); err == nil && (strings.HasPrefix(name, "/") || name == ".." || strings.HasPrefix(name, "../")) {
			t.Fatalf("Parse(%q).Name() = %q leaves the archive", s, name)
		}
		r, err := u.Resolve(ref)
		if err != nil {
			return
		}
		if _, err := Parse(r.String()); err != nil {
			t.Fatalf("Parse(%q).Resolve(%q) = %q, which does not parse: %v", s, ref, r, err)
		}
		if !strings.HasPrefix(ref, "//") && !strings.Contains(ref, ":") && !r.SameArchive(u) {
			t.Fatalf("Parse(%q).Resolve(%q) = %q, another archive", s, ref, r)
		}
		// A reference with a path has its dot segments removed (one
		// without keeps the base's path as it is, RFC 3986 section 5.2.2).
		if refPath, _, _ := strings.Cut(ref, "?"); refPath != "" && refPath[0] != '#' && (strings.Contains(r.Path, "/../") || strings.HasSuffix(r.Path, "/..")) {
			t.Fatalf("Parse(%q).Resolve(%q) = %q keeps a dot segment", s, ref, r)
		}
	})
}
