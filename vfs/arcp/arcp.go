package arcp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	"github.com/pipefs/pipefs/internal/rfc3986"
)

// ErrSyntax is matched (with errors.Is) by every error that [Parse],
// [URI.Resolve] and [New] return for malformed input.
var ErrSyntax = errors.New("invalid arcp URI")

// A SyntaxError reports a malformed arcp URI or reference: what is wrong
// and in which text. It matches both [ErrSyntax] and fs.ErrInvalid.
type SyntaxError struct {
	Input string // the text given
	Msg   string // what is wrong
}

// Error returns the message, quoting the input.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid arcp URI %q: %s", e.Input, e.Msg)
}

// Unwrap lets errors.Is match [ErrSyntax] and fs.ErrInvalid.
func (e *SyntaxError) Unwrap() []error { return []error{ErrSyntax, fs.ErrInvalid} }

// A Kind is the kind of an arcp authority: which prefix it carries.
type Kind uint8

// The authority kinds of the draft's section 3.1.
const (
	KindOther Kind = iota // a plain RFC 3986 authority, no known prefix
	KindUUID              // "uuid," and a UUID
	KindNI                // "ni," and an RFC 6920 alg-val
	KindName              // "name," and a reg-name
)

// String returns the prefix of the kind without its comma ("uuid", "ni",
// "name"), or "authority" for KindOther.
func (k Kind) String() string {
	switch k {
	case KindUUID:
		return "uuid"
	case KindNI:
		return "ni"
	case KindName:
		return "name"
	}
	return "authority"
}

// A URI is a parsed absolute arcp URI:
//
//	arcp://AUTHORITY[/PATH][?QUERY][#FRAGMENT]
//
// Text fields hold the text exactly as written (percent escapes keep their
// spelling), so String gives back the parsed text, except that the scheme
// is written in lower case.
type URI struct {
	Authority   string // never empty; "uuid,…", "ni,…", "name,…" or another authority
	Path        string // empty or starting with "/"
	HasQuery    bool   // the URI has a "?"
	Query       string // without the "?"
	HasFragment bool   // the URI has a "#"
	Fragment    string // without the "#"
}

// Parse parses an absolute arcp URI. The scheme is matched without regard
// to case, and so are the authority prefixes ("UUID," is "uuid,"), as ABNF
// strings are.
//
// Decisions where the draft leaves room:
//   - An authority that starts with one of the draft's prefixes must be
//     well formed for it: "uuid,x" is an error rather than a plain
//     authority that happens to hold a comma, since the prefixes are
//     reserved by the draft and such a text is a mistake.
//   - An empty authority ("arcp:///x") and "name," with an empty name are
//     errors: they identify no archive.
//   - The path follows RFC 3986's path-abempty, which is what any URI with
//     an authority has, so "arcp://a//x" parses (the draft writes
//     path-absolute, which would make the result of some reference
//     resolutions unrepresentable).
//   - Only URIs are accepted, not IRIs: non-ASCII text must be
//     percent-encoded as UTF-8.
func Parse(s string) (*URI, error) {
	// Not url.Parse: it rejects the escapes a reg-name may hold and does
	// not keep the text as written (see package rfc3986).
	fail := func(msg string) (*URI, error) { return nil, &SyntaxError{Input: s, Msg: msg} }
	const scheme = "arcp://"
	if len(s) < len(scheme) || !strings.EqualFold(s[:len(scheme)], scheme) {
		return fail(`not an arcp URI: it must start with "arcp://"`)
	}
	u := new(URI)
	rest := s[len(scheme):]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		u.HasFragment, u.Fragment, rest = true, rest[i+1:], rest[:i]
		if msg := checkChars(u.Fragment, "/?"); msg != "" {
			return fail("fragment: " + msg)
		}
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		u.HasQuery, u.Query, rest = true, rest[i+1:], rest[:i]
		if msg := checkChars(u.Query, "/?"); msg != "" {
			return fail("query: " + msg)
		}
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		i = len(rest)
	}
	u.Authority, u.Path = rest[:i], rest[i:]
	if msg := checkAuthority(u.Authority); msg != "" {
		return fail(msg)
	}
	if msg := checkChars(u.Path, "/"); msg != "" {
		return fail("path: " + msg)
	}
	return u, nil
}

// String returns the text of u.
func (u *URI) String() string {
	var b strings.Builder
	b.WriteString("arcp://")
	b.WriteString(u.Authority)
	b.WriteString(u.Path)
	if u.HasQuery {
		b.WriteByte('?')
		b.WriteString(u.Query)
	}
	if u.HasFragment {
		b.WriteByte('#')
		b.WriteString(u.Fragment)
	}
	return b.String()
}

// Kind returns the kind of u's authority.
func (u *URI) Kind() Kind {
	k, _ := splitAuthority(u.Authority)
	return k
}

// New returns the arcp URI of the [io/fs] name inside the archive that
// authority identifies: its path is "/" followed by name with each segment
// percent-encoded as RFC 3986 requires, and "/" for name ".". dir adds the
// trailing "/" the draft recommends for a directory. authority must be
// valid for [Parse] and name for [fs.ValidPath].
func New(authority, name string, dir bool) (*URI, error) {
	if msg := checkAuthority(authority); msg != "" {
		return nil, &SyntaxError{Input: "arcp://" + authority, Msg: msg}
	}
	if !fs.ValidPath(name) {
		return nil, &SyntaxError{Input: name, Msg: "not a valid fs name"}
	}
	u := &URI{Authority: authority, Path: "/"}
	if name != "." {
		u.Path += rfc3986.Escape(name, func(c byte) bool { return rfc3986.IsPchar(c) || c == '/' })
		if dir {
			u.Path += "/"
		}
	}
	return u, nil
}

// Name returns the [io/fs] name that u's path gives inside its archive:
// the path with its dot segments removed (RFC 3986 section 5.2.4, so ".."
// stops at the root), without its leading and trailing "/", then
// percent-decoded; "." for an empty path or "/". A path that still does
// not give a valid fs name (an empty segment, as in "/a//b", a segment
// that decodes to "..", as "%2E%2E" does, or a malformed escape in a URI
// that Parse did not make) is an error matching
// fs.ErrInvalid: it never names another file. An escaped slash ("%2F")
// separates names like a literal one.
func (u *URI) Name() (string, error) {
	p := rfc3986.RemoveDotSegments(u.Path)
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return ".", nil
	}
	name, err := url.PathUnescape(p)
	if err != nil || !fs.ValidPath(name) {
		return "", &SyntaxError{Input: u.String(), Msg: fmt.Sprintf("path %q does not name a file inside the archive", u.Path)}
	}
	return name, nil
}

// IsDir reports whether u's path is empty or ends in "/", which the
// draft recommends for a directory.
func (u *URI) IsDir() bool { return u.Path == "" || strings.HasSuffix(u.Path, "/") }

// SameArchive reports whether u and v have the same authority, compared
// as [AuthorityKey] does: whether they name resources of the same
// archive.
func (u *URI) SameArchive(v *URI) bool {
	return AuthorityKey(u.Authority) == AuthorityKey(v.Authority)
}

// splitAuthority returns the kind of authority a and the text after its
// prefix (all of a for KindOther).
func splitAuthority(a string) (Kind, string) {
	for _, k := range []Kind{KindUUID, KindNI, KindName} {
		p := k.String() + ","
		if len(a) >= len(p) && strings.EqualFold(a[:len(p)], p) {
			return k, a[len(p):]
		}
	}
	return KindOther, a
}

// checkAuthority returns what is wrong with the authority a, or "".
func checkAuthority(a string) string {
	if a == "" {
		return "empty authority: it must identify the archive (uuid,…, ni,…, name,…)"
	}
	k, v := splitAuthority(a)
	switch k {
	case KindUUID:
		if _, err := ParseUUID(v); err != nil {
			return fmt.Sprintf("authority %q: %v", a, err)
		}
	case KindNI:
		alg, val, ok := strings.Cut(v, ";")
		if !ok || alg == "" || val == "" || !allUnreserved(alg) || !allUnreserved(val) {
			return fmt.Sprintf("authority %q: want ni,ALG;VALUE with unreserved characters only (RFC 6920 alg-val), as ni,sha-256;<base64url digest>", a)
		}
	case KindName:
		if v == "" {
			return fmt.Sprintf("authority %q: empty name", a)
		}
		if msg := checkChars(v, "\x00"); msg != "" || strings.ContainsAny(v, ":@") {
			return fmt.Sprintf("authority %q: a name holds only letters, digits, %q and %%HH escapes", a, "-._~!$&'()*+,;=")
		}
	default:
		return checkGenericAuthority(a)
	}
	return ""
}

// checkGenericAuthority checks a as RFC 3986's authority production:
// [userinfo "@"] host [":" port], with an IP literal in brackets.
func checkGenericAuthority(a string) string {
	bad := func(what string) string { return fmt.Sprintf("authority %q: %s", a, what) }
	host := a
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		userinfo := a[:i]
		host = a[i+1:]
		if msg := checkChars(userinfo, "\x00"); msg != "" || strings.ContainsAny(userinfo, "@") {
			return bad("bad userinfo")
		}
	}
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return bad(`IP literal without "]"`)
		}
		lit := host[1:end]
		if lit == "" || strings.Trim(lit, "0123456789abcdefABCDEF:.vV-_~!$&'()*+,;=") != "" {
			return bad("bad IP literal")
		}
		host = host[end+1:]
		if host != "" && host[0] != ':' {
			return bad(`text after "]"`)
		}
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 {
		if msg := checkChars(host[:i], "\x00"); msg != "" || strings.ContainsAny(host[:i], ":@") {
			return bad("bad host")
		}
		host = host[i:]
	} else {
		if msg := checkChars(host, "\x00"); msg != "" || strings.ContainsAny(host, ":@") {
			return bad("bad host")
		}
		host = ""
	}
	if port, ok := strings.CutPrefix(host, ":"); ok && strings.Trim(port, "0123456789") != "" {
		return bad("port is not a number")
	}
	return ""
}

func allUnreserved(s string) bool {
	for i := 0; i < len(s); i++ {
		if !rfc3986.IsUnreserved(s[i]) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// checkChars returns what is wrong with s as a run of pchars, %HH escapes
// and the bytes of extra, or "".
func checkChars(s, extra string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Sprintf("bad percent escape at byte %d (a %% is written %%25)", i)
			}
			i += 2
		case rfc3986.IsPchar(c) || strings.IndexByte(extra, c) >= 0:
		default:
			return fmt.Sprintf("character %q at byte %d must be percent-encoded", c, i)
		}
	}
	return ""
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// AuthorityKey returns the form under which two authorities are compared:
// the prefix in lower case; for uuid, the UUID in lower case; for name and
// a plain authority, the text with escapes of unreserved characters
// decoded, other escapes in upper case, and letters in lower case (RFC
// 3986 section 6.2.2: a reg-name is case-insensitive); for ni, the
// algorithm in lower case and the value as written, because a base64url
// value is case-sensitive (RFC 6920). It returns a unchanged when a is not
// a valid authority.
func AuthorityKey(a string) string {
	if checkAuthority(a) != "" {
		return a
	}
	k, v := splitAuthority(a)
	switch k {
	case KindUUID:
		return "uuid," + strings.ToLower(v)
	case KindNI:
		alg, val, _ := strings.Cut(v, ";")
		return "ni," + strings.ToLower(alg) + ";" + val
	case KindName:
		return "name," + normalizeRegName(v)
	}
	// Only the host is case-insensitive, not the userinfo.
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		return normalizeEscapes(a[:i+1]) + normalizeRegName(a[i+1:])
	}
	return normalizeRegName(a)
}

// normalizeEscapes decodes the escapes of unreserved characters in s and
// writes the others in upper case (RFC 3986 section 6.2.2.2).
func normalizeEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			if d := unhex(s[i+1])<<4 | unhex(s[i+2]); rfc3986.IsUnreserved(d) {
				b.WriteByte(d)
			} else {
				b.WriteString(strings.ToUpper(s[i : i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// normalizeRegName applies RFC 3986's case and percent-encoding
// normalizations to a reg-name: escapes as normalizeEscapes does, then
// letters in lower case (the hex digits of escapes stay upper case).
func normalizeRegName(s string) string {
	s = normalizeEscapes(s)
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '%':
			i += 2
		case 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// UUIDAuthority returns the authority "uuid,<u>" (the UUID in lower case).
func UUIDAuthority(u UUID) string { return "uuid," + u.String() }

// LocationAuthority returns the location-based authority of the draft's
// section 4.1: "uuid," and the name-based UUID v5 of location in the URL
// namespace.
func LocationAuthority(location string) string {
	return UUIDAuthority(NewSHA1(NamespaceURL, []byte(location)))
}

// NIAuthority returns the hash-based authority "ni,<alg>;<value>", whose
// value is the base64url encoding of digest without padding (RFC 6920
// section 3). The draft recommends alg "sha-256" with the whole digest.
func NIAuthority(alg string, digest []byte) string {
	return "ni," + alg + ";" + base64.RawURLEncoding.EncodeToString(digest)
}

// NameAuthority returns the authority "name,<name>", name percent-encoded
// where a reg-name cannot hold it (its case kept), or "" for an empty
// name.
func NameAuthority(name string) string {
	if name == "" {
		return ""
	}
	return "name," + rfc3986.Escape(name, rfc3986.IsRegName)
}
