package vfs

import (
	"fmt"
	"strings"

	"github.com/pipefs/pipefs/internal/rfc3986"
)

// Resolve resolves ref against the absolute pipeline p, following SPEC
// section 5, and returns the canonical result. p itself is not changed.
//
// ref is either an absolute pipeline, which replaces p, or a relative
// pipeline, path *( "|" adapter ). The path is an RFC 3986 relative
// reference (it may carry "//authority" and "?query") resolved against the
// innermost sub-URL of p: for s3 and gs against the path after the bucket,
// for s3+http and s3+https against the path that includes the bucket, and
// for ocdbt and icechunk against the path after the version. Dot segments
// are removed and ".." clamps at the root. A non-empty path drops the query
// of the innermost sub-URL and an empty one keeps it. The adapters are then
// appended and the whole is canonicalised as by [Parse], including "..:"
// resolution and the kind checks.
//
// ref is absolute when its first sub-URL starts with a scheme and a colon,
// as in RFC 3986: "zip:x" is therefore an absolute pipeline, which is an
// error because zip cannot be the root (append an adapter with "|zip:x").
// A first path segment holding ":" must be written "./a:b"; a first
// segment that holds ":" but does not start with a valid scheme is an
// error. A ref that starts with "..:" is an empty path followed by
// adapters; a bare leading ".." (no colon) is the path "..". An empty
// ref gives p back.
//
// Errors are [*SyntaxError] values. Those found in the result name the
// sub-URL by its index in the resolved pipeline, whose text is the error's
// Input.
func (p Pipeline) Resolve(ref string) (Pipeline, error) {
	first, adapters, hasAdapters := strings.Cut(ref, "|")
	if scheme, _, ok := strings.Cut(first, ":"); ok && !strings.ContainsAny(scheme, "/?#") {
		switch {
		case scheme == dotdot:
			first, adapters, hasAdapters = "", ref, true
		case isScheme(scheme):
			return Parse(ref)
		default:
			return nil, &SyntaxError{Input: ref, Index: 0, Sub: first,
				Msg: fmt.Sprintf(`the first path segment holds ":"; write ./%s`, first)}
		}
	}
	if len(p) == 0 {
		return nil, &SyntaxError{Input: ref, Index: -1, Msg: "cannot resolve a relative pipeline against an empty pipeline"}
	}
	base, err := Parse(p.String())
	if err != nil {
		return nil, err
	}
	r, msg := parseReference(first)
	if msg != "" {
		return nil, &SyntaxError{Input: ref, Index: 0, Sub: first, Msg: msg}
	}
	last := len(base) - 1
	u, msg := resolveSubURL(base[last], r)
	if msg != "" {
		return nil, &SyntaxError{Input: ref, Index: 0, Sub: first,
			Msg: fmt.Sprintf("resolving against %q: %s", base[last].String(), msg)}
	}
	base[last] = u
	text := base.String()
	if hasAdapters {
		text += "|" + adapters
	}
	return Parse(text)
}

// A reference is the parsed path part of a relative pipeline, or the path
// of a "..:" sub-URL: an RFC 3986 relative reference without fragment.
type reference struct {
	hasAuthority bool
	authority    string
	path         string
	hasQuery     bool
	query        string
}

// parseReference parses the path part of a relative pipeline.
func parseReference(s string) (reference, string) {
	var r reference
	if strings.IndexByte(s, '#') >= 0 {
		return r, `fragments ("#") are not allowed; write %23`
	}
	if before, query, ok := strings.Cut(s, "?"); ok {
		s, r.hasQuery, r.query = before, true, query
	}
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		r.hasAuthority = true
		r.authority, r.path = rest, ""
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			r.authority, r.path = rest[:i], rest[i:]
		}
	} else {
		r.path = s
	}
	for _, c := range []struct{ s, extra string }{{r.authority, "[]"}, {r.path, ""}, {r.query, "?"}} {
		if msg := checkChars(c.s, c.extra); msg != "" {
			return r, msg
		}
	}
	return r, ""
}

// resolveSubURL resolves the reference r against the authority, path and
// query of u (RFC 3986 section 5.2.2, without fragments). It returns a
// message when the result cannot be written as a sub-URL; the caller checks
// the scheme's rules.
func resolveSubURL(u SubURL, r reference) (SubURL, string) {
	// A scheme without a host (memory://) takes the text after "//" as the
	// path.
	info, _ := lookupScheme(u.Scheme)
	noHost := info.authority.form == authKey
	baseAuthority := u.HasAuthority && !noHost
	t := u
	switch {
	case r.hasAuthority:
		if noHost {
			t.HasAuthority, t.Authority = true, ""
			t.Path = rfc3986.RemoveDotSegments(r.authority + r.path)
		} else {
			t.HasAuthority, t.Authority = true, r.authority
			t.Path = rfc3986.RemoveDotSegments(r.path)
		}
		t.HasQuery, t.Query = r.hasQuery, r.query
	case r.path == "":
		if r.hasQuery {
			t.HasQuery, t.Query = true, r.query
		}
	default:
		if strings.HasPrefix(r.path, "/") {
			t.Path = rfc3986.RemoveDotSegments(r.path)
		} else {
			t.Path = rfc3986.RemoveDotSegments(rfc3986.Merge(u.Path, r.path, baseAuthority))
		}
		t.HasQuery, t.Query = r.hasQuery, r.query
	}
	if !t.HasAuthority && strings.HasPrefix(t.Path, "//") {
		return u, fmt.Sprintf("the resolved path %q would read as an authority", t.Path)
	}
	if info.authority.form == authVersion && !t.HasAuthority && strings.HasPrefix(t.Path, "@") {
		// A path that really starts with "@" is written %40, not read as
		// a version.
		t.Path = "%40" + t.Path[1:]
	}
	return t, ""
}
