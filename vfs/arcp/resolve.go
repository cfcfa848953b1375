package arcp

import (
	"strings"

	"github.com/pipefs/pipefs/internal/rfc3986"
)

// Resolve resolves the URI reference ref against u as RFC 3986 section
// 5.2.2 says, and returns the target. Dot segments are removed, and ".."
// above the root stays at the root, so a relative reference
// ("../../x", "/x", "x?q", "#f") always names a resource of u's archive:
// against arcp://uuid,…/css/base.css, "../../../outside.txt" gives
// arcp://uuid,…/outside.txt.
//
// A reference with its own authority ("//name,other/x") or an absolute
// arcp URI names whatever archive it says; [URI.SameArchive] tells the two
// apart, for a caller that must keep to one archive (the draft's
// same-origin advice). A reference with another scheme ("http://…") is an
// error matching [ErrSyntax], since its target is no arcp URI.
func (u *URI) Resolve(ref string) (*URI, error) {
	// URL.ResolveReference of net/url gives the same targets, but
	// url.Parse cannot read every arcp URI ("arcp://name,a%20b.zip/" is
	// an "invalid URL escape"), re-encodes hosts, drops an empty fragment
	// and accepts characters RFC 3986 forbids (see package rfc3986), so
	// the reference is split and checked here.
	r, err := parseReference(ref)
	if err != nil {
		return nil, err
	}
	t := &URI{HasFragment: r.hasFragment, Fragment: r.fragment}
	switch {
	case r.scheme != "":
		if !strings.EqualFold(r.scheme, "arcp") {
			return nil, &SyntaxError{Input: ref, Msg: "a reference with scheme " + r.scheme + ": resolves to no arcp URI"}
		}
		v, err := Parse(ref)
		if err != nil {
			return nil, err
		}
		v.Path = rfc3986.RemoveDotSegments(v.Path)
		return v, nil
	case r.hasAuthority:
		t.Authority, t.Path = r.authority, rfc3986.RemoveDotSegments(r.path)
		t.HasQuery, t.Query = r.hasQuery, r.query
	case r.path == "":
		t.Authority, t.Path = u.Authority, u.Path
		if r.hasQuery {
			t.HasQuery, t.Query = true, r.query
		} else {
			t.HasQuery, t.Query = u.HasQuery, u.Query
		}
	default:
		t.Authority = u.Authority
		if strings.HasPrefix(r.path, "/") {
			t.Path = rfc3986.RemoveDotSegments(r.path)
		} else {
			t.Path = rfc3986.RemoveDotSegments(rfc3986.Merge(u.Path, r.path, true))
		}
		t.HasQuery, t.Query = r.hasQuery, r.query
	}
	// Check what the reference brought in, so that the target parses.
	if _, err := Parse(t.String()); err != nil {
		return nil, &SyntaxError{Input: ref, Msg: err.(*SyntaxError).Msg}
	}
	return t, nil
}

// A reference is a URI reference split into its RFC 3986 components.
type reference struct {
	scheme                string
	hasAuthority          bool
	authority, path       string
	hasQuery, hasFragment bool
	query, fragment       string
}

// parseReference splits ref into its components (RFC 3986 appendix B)
// and checks their characters.
func parseReference(ref string) (reference, error) {
	var r reference
	rest := ref
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		r.hasFragment, r.fragment, rest = true, rest[i+1:], rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		r.hasQuery, r.query, rest = true, rest[i+1:], rest[:i]
	}
	if i := strings.IndexAny(rest, ":/"); i > 0 && rest[i] == ':' && isScheme(rest[:i]) {
		r.scheme, rest = rest[:i], rest[i+1:]
	}
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			i = len(rest)
		}
		r.hasAuthority, r.authority, rest = true, rest[:i], rest[i:]
	}
	r.path = rest
	for _, c := range []struct{ what, s, extra string }{
		{"path", r.path, "/"}, {"query", r.query, "/?"}, {"fragment", r.fragment, "/?"},
	} {
		if msg := checkChars(c.s, c.extra); msg != "" {
			return r, &SyntaxError{Input: ref, Msg: c.what + ": " + msg}
		}
	}
	if r.scheme == "" && !r.hasAuthority {
		// A first segment with a colon would read as a scheme (RFC 3986
		// section 4.2: path-noscheme).
		seg, _, _ := strings.Cut(r.path, "/")
		if strings.IndexByte(seg, ':') >= 0 {
			return r, &SyntaxError{Input: ref, Msg: `a relative path whose first segment holds ":" is written "./` + r.path + `"`}
		}
	}
	return r, nil
}

// isScheme reports whether s matches scheme = ALPHA *( ALPHA / DIGIT / "+"
// / "-" / "." ).
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		switch {
		case 'a' <= c && c <= 'z':
		case i > 0 && ('0' <= s[i] && s[i] <= '9' || s[i] == '+' || s[i] == '-' || s[i] == '.'):
		default:
			return false
		}
	}
	return s != ""
}
