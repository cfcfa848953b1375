// Package rfc3986 holds the parts of RFC 3986 that pipefs's sub-URLs
// (package vfs), arcp URIs (package vfs/arcp) and the command line share
// and that net/url does not give in the form they need: reference
// resolution on the text of a path as written, and percent-encoding in
// the canonical form, which leaves sub-delims unescaped.
//
// net/url serves neither: url.Parse rejects the percent escapes that a
// reg-name may hold ("arcp://name,a%20b.zip/"), decodes and re-encodes
// hosts and user information, and drops an empty fragment, so the text of
// a URI does not come back as it was written; URL.ResolveReference works
// on whole URLs only; and url.PathEscape escapes sub-delims ("!" is
// written %21), which the canonical forms keep.
package rfc3986

import "strings"

// IsUnreserved reports whether c is an unreserved character (section
// 2.3): a letter, a digit, "-", ".", "_" or "~".
func IsUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// IsSubDelim reports whether c is a sub-delim (section 2.2), one of
// !$&'()*+,;=.
func IsSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

// IsRegName reports whether c may stand unescaped in a reg-name (section
// 3.2.2): whether it is unreserved or a sub-delim.
func IsRegName(c byte) bool { return IsUnreserved(c) || IsSubDelim(c) }

// IsPchar reports whether c may stand unescaped in a path segment
// (section 3.3): whether it is unreserved, a sub-delim, ":" or "@".
func IsPchar(c byte) bool { return IsRegName(c) || c == ':' || c == '@' }

// Escape percent-encodes every byte of s that keep rejects, with
// upper-case hex digits, as section 6.2.2.1 normalizes escapes.
func Escape(s string, keep func(c byte) bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keep(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// Merge merges a relative-path reference ref with the path of its base
// (section 5.2.3); hasAuthority tells whether the base has an authority.
func Merge(base, ref string, hasAuthority bool) string {
	if hasAuthority && base == "" {
		return "/" + ref
	}
	i := strings.LastIndexByte(base, '/')
	return base[:i+1] + ref
}

// RemoveDotSegments removes the "." and ".." segments of the path p
// (section 5.2.4); ".." at the root stays at the root. A relative path
// stays relative. Escaped dots ("%2E") are not dot segments.
func RemoveDotSegments(p string) string {
	if p == "" {
		return ""
	}
	if !strings.HasPrefix(p, "/") {
		return RemoveDotSegments("/" + p)[1:]
	}
	var out []string // output segments, each with its leading "/"
	in := p
	for in != "" {
		switch {
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			// in starts with "/": move its first segment to the output.
			j := strings.IndexByte(in[1:], '/')
			if j < 0 {
				out = append(out, in)
				in = ""
			} else {
				out = append(out, in[:j+1])
				in = in[j+1:]
			}
		}
	}
	return strings.Join(out, "")
}
