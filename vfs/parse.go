package vfs

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Parse parses an absolute pipeline, checks it against SPEC sections 1-3 and
// returns it in the canonical form of SPEC section 4, so that
// Parse(p.String()) gives p back. Every error is a [*SyntaxError].
//
// Parse checks the syntax of every standard scheme and the kinds of SPEC
// section 2 (a mismatch that is certain from the text, such as
// "gs://bucket|zip:", is a syntax error). It does not consult the scheme
// registry: a well-formed vendor scheme that nobody registered parses, and
// fails when the pipeline is opened.
//
// Where the specification is silent, Parse decides as follows:
//
//   - A bare ".." adapter means "..:", as a bare "zip" means "zip:".
//   - Host names (http, https, s3+http, s3+https, file) follow the RFC 3986
//     reg-name: unreserved characters, sub-delims and %HH escapes. A port is
//     digits only, of any length, and may be empty; it is not range checked.
//     An IPv6 literal may carry an RFC 6874 zone ("[fe80::1%25eth0]").
//     IPvFuture literals are rejected.
//   - A file: authority is a host with an optional port, like http's; any
//     host other than empty or localhost parses and fails at open.
//   - s3 buckets of 3 to 63 characters also follow the current AWS naming
//     rules beyond those listed in SPEC section 3: no "sthree-" or
//     "amzn-s3-demo-" prefix and no ".mrap", "--x-s3" or "--table-s3" suffix.
//   - byte-range numbers are decimal digits; leading zeros are accepted and
//     kept as written.
//   - An ocdbt or icechunk sub-URL with "//" must name a version: "ocdbt://"
//     and "ocdbt:///p" are errors (write "ocdbt:" or "ocdbt:p" for the
//     latest). A commit time is upper-case "T" and "Z", with real calendar
//     values (no leap second).
//   - The legacy forms "ocdbt:@VERSION/p" and "icechunk:@REF/p" take the
//     text up to the first "/" as the version.
//   - A json: pointer is percent-decoded before it is split into tokens
//     (RFC 6901 section 6), so "%2F" separates tokens and a literal "/" in a
//     token is "~1".
//   - The trailing "/" of SPEC section 4 step 5 is added only after a
//     sub-URL whose kind follows its path (the roots, zip, ocdbt, icechunk
//     and pipefs.tar); after any other standard adapter the kind check
//     reports the mismatch instead.
func Parse(s string) (Pipeline, error) {
	if s == "" {
		return nil, &SyntaxError{Input: s, Index: -1, Msg: "empty pipeline"}
	}
	raws := strings.Split(s, "|")
	for i, raw := range raws {
		if raw == "" {
			return nil, &SyntaxError{Input: s, Index: i, Msg: `empty sub-URL (a raw "|" always splits; write %7C in a name)`}
		}
	}
	items := make([]item, 0, len(raws))
	for i, raw := range raws {
		u, msg := parseSubURL(raw, i == 0)
		if msg != "" {
			return nil, &SyntaxError{Input: s, Index: i, Sub: raw, Msg: msg}
		}
		items = append(items, item{u: u, index: i})
	}
	return canonicalise(s, items)
}

// MustParse is like [Parse] but panics if s does not parse. It is meant for
// tests and examples with constant pipelines.
func MustParse(s string) Pipeline {
	p, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}

// ParseAdapter parses a single adapter sub-URL, such as "zip", "zip:a/b" or
// "zarr3:", with every check of [Parse] that does not depend on its base:
// kind checks and "..:" need a whole pipeline, so ".." is rejected here.
// The result is canonical (lower-case scheme, colon added). It is meant
// for registering adapters and formats; every error is a [*SyntaxError].
func ParseAdapter(s string) (SubURL, error) {
	if strings.IndexByte(s, '|') >= 0 {
		return SubURL{}, &SyntaxError{Input: s, Index: -1, Msg: `an adapter is a single sub-URL; a raw "|" always splits`}
	}
	u, msg := parseSubURL(s, false)
	if msg == "" && u.Scheme == dotdot {
		msg = `".." is not an adapter on its own: it removes the adapter before it`
	}
	if msg != "" {
		return SubURL{}, &SyntaxError{Input: s, Index: 0, Sub: s, Msg: msg}
	}
	return u, nil
}

// An item is a sub-URL with its index in the text that was parsed.
type item struct {
	u     SubURL
	index int
}

// canonicalise applies steps 3 and 5 of SPEC section 4 to syntactically
// valid sub-URLs (steps 1, 2 and 4 are done by parseSubURL), then checks
// the kinds.
func canonicalise(input string, items []item) (Pipeline, error) {
	// Resolve "..:" sub-URLs, left to right.
	stack := items[:0:0]
	for _, it := range items {
		if it.u.Scheme != dotdot {
			stack = append(stack, it)
			continue
		}
		if len(stack) < 2 {
			return nil, &SyntaxError{Input: input, Index: it.index, Sub: it.u.String(),
				Msg: `"..:" has no adapter before it to remove`}
		}
		stack = stack[:len(stack)-1]
		target := &stack[len(stack)-1]
		u, msg := resolveSubURL(target.u, reference{path: it.u.Path})
		if msg == "" {
			msg = checkSubURL(u)
		}
		if msg != "" {
			return nil, &SyntaxError{Input: input, Index: it.index, Sub: it.u.String(),
				Msg: fmt.Sprintf("resolving against %q: %s", target.u.String(), msg)}
		}
		target.u = u
	}

	// A directory-reading adapter reads a directory: make its base say so.
	for i := 1; i < len(stack); i++ {
		info, _ := lookupScheme(stack[i].u.Scheme)
		prev := &stack[i-1].u
		pinfo, _ := lookupScheme(prev.Scheme)
		if info.dirReader && pinfo.yields == KindAny && prev.Path != "" && !strings.HasSuffix(prev.Path, "/") {
			prev.Path += "/"
		}
	}

	// Kinds.
	for i := 1; i < len(stack); i++ {
		u := stack[i].u
		info, _ := lookupScheme(u.Scheme)
		prev := stack[i-1].u
		have := prev.Kind()
		if !kindFits(have, info.base) {
			return nil, &SyntaxError{Input: input, Index: stack[i].index, Sub: u.String(),
				Msg: fmt.Sprintf("%s needs %s as its base, but %q yields %s", u.Scheme, info.base.article(), prev.String(), have.article())}
		}
	}

	p := make(Pipeline, len(stack))
	for i, it := range stack {
		p[i] = it.u
	}
	return p, nil
}

// kindFits reports whether a base of kind have can serve an adapter that
// needs kind need.
func kindFits(have, need Kind) bool {
	switch {
	case have == KindUnknown || need == KindUnknown || have == need:
		return true
	case have == KindAny:
		return need == KindFile || need == KindDirectory
	}
	return false
}

// parseSubURL splits one sub-URL into its parts and checks it. It returns a
// non-empty message when the sub-URL is invalid.
func parseSubURL(raw string, first bool) (SubURL, string) {
	var u SubURL
	if raw == "" {
		return u, "empty sub-URL"
	}
	scheme, rest, colon := strings.Cut(raw, ":")
	if scheme != dotdot && !isScheme(scheme) {
		if !colon {
			return u, fmt.Sprintf("missing scheme: want scheme \":\" path, got %q", raw)
		}
		return u, fmt.Sprintf("invalid scheme %q: a scheme is a letter followed by letters, digits, \"+\", \"-\" or \".\"", scheme)
	}
	scheme = strings.ToLower(scheme)
	u.Scheme = scheme
	info, ok := lookupScheme(scheme)
	switch {
	case scheme == dotdot:
		if first {
			return u, `".." cannot be the root: it removes the adapter before it`
		}
	case !ok:
		return u, fmt.Sprintf("unknown scheme %q: not a standard scheme, and not a vendor scheme of the form vendor.name", scheme)
	case first && info.role == roleAdapter:
		return u, fmt.Sprintf("%s is an adapter and cannot be the root; the root is one of %s or a vendor scheme", scheme, strings.Join(schemes.roots(), ", "))
	case !first && info.role == roleRoot:
		return u, fmt.Sprintf("%s is a root scheme and can only come first", scheme)
	case first && !colon:
		return u, fmt.Sprintf("the root needs a colon: write %s:", scheme)
	}
	name := scheme // for messages
	if scheme == dotdot {
		info, name = schemeInfo{role: roleAdapter}, `".."`
	}

	if i := strings.IndexByte(rest, '#'); i >= 0 {
		return u, `fragments ("#") are not allowed; write %23`
	}
	hier := rest
	if before, query, ok := strings.Cut(rest, "?"); ok {
		if !info.query {
			return u, fmt.Sprintf(`%s takes no query ("?"); write %%3F for a literal "?"`, name)
		}
		hier, u.HasQuery, u.Query = before, true, query
	}
	if strings.HasPrefix(hier, "//") {
		if info.authority.form == authNone {
			return u, fmt.Sprintf(`%s takes no authority ("//")`, name)
		}
		u.HasAuthority = true
		if info.authority.form == authKey {
			// No host (memory://): the text after "//" is the path.
			u.Path = hier[2:]
		} else {
			auth, path := hier[2:], ""
			if i := strings.IndexByte(auth, '/'); i >= 0 {
				auth, path = auth[:i], auth[i:]
			}
			u.Authority, u.Path = auth, path
		}
	} else {
		u.Path = hier
	}

	if msg := checkChars(u.Authority, "[]"); msg != "" {
		return u, msg
	}
	if msg := checkChars(u.Path, ""); msg != "" {
		return u, msg
	}
	if msg := checkChars(u.Query, "?"); msg != "" {
		return u, msg
	}

	// Legacy version forms: ocdbt:@v1/p is ocdbt://v1/p.
	if info.authority.form == authVersion && !u.HasAuthority && strings.HasPrefix(u.Path, "@") {
		version, path := u.Path[1:], ""
		if i := strings.IndexByte(version, '/'); i >= 0 {
			version, path = version[:i], version[i:]
		}
		u.HasAuthority, u.Authority, u.Path = true, version, path
	}
	return u, checkSubURL(u)
}

// checkChars checks the characters of one component: letters, digits,
// -._~!$&'()*+,;=:@/, well-formed %HH escapes, and the bytes of extra.
func checkChars(s, extra string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				end := min(i+3, len(s))
				return fmt.Sprintf("malformed percent escape %q: want %% followed by two hex digits (write %%25 for a literal %%)", s[i:end])
			}
			i += 2
		case isPathByte(c) || strings.IndexByte(extra, c) >= 0:
		case c >= utf8.RuneSelf:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return fmt.Sprintf("character %q must be percent-encoded (vfs.FromPath encodes a local path, SubURL.Join a member name)", r)
		case c == '[' || c == ']':
			return `"[" and "]" are allowed only around an IPv6 literal host and in a vendor authority; write %5B and %5D`
		default:
			return fmt.Sprintf("character %q must be percent-encoded (write %%%02X; vfs.FromPath encodes a local path, SubURL.Join a member name)", c, c)
		}
	}
	return ""
}

// isPathByte reports whether c may appear unescaped in a path: unreserved,
// sub-delims, ":", "@" and "/".
func isPathByte(c byte) bool {
	if isAlpha(c) || isDigit(c) {
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0
}

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// checkSubURL checks the rules of u's scheme (SPEC section 3), as its row
// in the scheme table gives them, on a sub-URL whose characters are valid:
// the authority first, then the path.
func checkSubURL(u SubURL) string {
	info, _ := lookupScheme(u.Scheme)
	switch a := info.authority; {
	case !u.HasAuthority && a.required:
		return a.missing(u.Scheme)
	case u.HasAuthority && a.check != nil:
		if msg := a.check(u.Scheme, u.Authority); msg != "" {
			return msg
		}
	}
	return info.path.check(u.Scheme, u.Path)
}

// splitHostPort splits an http-style authority into host and port. host
// keeps the brackets of an IPv6 literal; hasPort reports a ":".
func splitHostPort(auth string) (host, port string, hasPort bool) {
	host = auth
	if strings.HasPrefix(auth, "[") {
		if i := strings.IndexByte(auth, ']'); i >= 0 {
			host, auth = auth[:i+1], auth[i+1:]
			if p, ok := strings.CutPrefix(auth, ":"); ok {
				return host, p, true
			}
			return host, "", false
		}
		return auth, "", false
	}
	host, port, hasPort = strings.Cut(auth, ":")
	return host, port, hasPort
}

// checkHost checks an http-style authority: host [":" port], no userinfo.
func checkHost(scheme, auth string, emptyOK bool) string {
	if strings.Contains(auth, "@") {
		return fmt.Sprintf(`%s takes no userinfo ("@") in its authority; write %%40 in a path`, scheme)
	}
	host, port, hasPort := splitHostPort(auth)
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") {
			return fmt.Sprintf("unterminated IPv6 literal %q", host)
		}
		if msg := checkIPv6(host[1 : len(host)-1]); msg != "" {
			return msg
		}
		if len(host) < len(auth) && !hasPort {
			return fmt.Sprintf(`unexpected %q after the IPv6 literal %q`, auth[len(host):], host)
		}
	} else {
		if strings.ContainsAny(host, "[]") {
			return `"[" and "]" are allowed only around an IPv6 literal host`
		}
		if host == "" && (!emptyOK || hasPort) {
			return fmt.Sprintf("%s needs a host", scheme)
		}
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return fmt.Sprintf("port %q must be digits only", port)
		}
	}
	return ""
}

// checkIPv6 checks the text between the brackets of an IPv6 literal, with
// an optional RFC 6874 zone ("%25" zone).
func checkIPv6(s string) string {
	addr, zone, hasZone := strings.Cut(s, "%25")
	if hasZone {
		if zone == "" {
			return fmt.Sprintf("empty zone in IPv6 literal %q", "["+s+"]")
		}
		for i := 0; i < len(zone); i++ {
			if c := zone[i]; c == '%' || !isPathByte(c) || strings.IndexByte("!$&'()*+,;=:@/", c) >= 0 {
				return fmt.Sprintf("invalid zone in IPv6 literal %q", "["+s+"]")
			}
		}
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil || !ip.Is6() || ip.Zone() != "" {
		return fmt.Sprintf("invalid IPv6 literal %q", "["+s+"]")
	}
	return ""
}

// checkS3Bucket checks an S3 bucket name (SPEC section 3).
func checkS3Bucket(b string) string {
	n := len(b)
	switch {
	case n < 3:
		return fmt.Sprintf("s3 bucket %q must be 3 to 63 characters", b)
	case n > 255:
		return fmt.Sprintf("s3 bucket %q must be 3 to 63 characters (64 to 255 for a legacy us-east-1 name)", b)
	case !isAlnum(b[0]) || !isAlnum(b[n-1]):
		return fmt.Sprintf("s3 bucket %q must start and end with a letter or digit", b)
	}
	if n > 63 {
		// Legacy us-east-1 names.
		for i := 0; i < n; i++ {
			if c := b[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
				return fmt.Sprintf("s3 bucket %q may hold only letters, digits, \".\", \"_\" and \"-\"", b)
			}
		}
		return ""
	}
	for i := 0; i < n; i++ {
		if c := b[i]; !isLowerAlnum(c) && c != '.' && c != '-' {
			if 'A' <= c && c <= 'Z' || c == '_' {
				return fmt.Sprintf("s3 bucket %q may hold only a-z, 0-9, \".\" and \"-\" (upper case and \"_\" only in legacy names of 64 to 255 characters)", b)
			}
			return fmt.Sprintf("s3 bucket %q may hold only a-z, 0-9, \".\" and \"-\"", b)
		}
	}
	if strings.Contains(b, "..") {
		return fmt.Sprintf("s3 bucket %q must not hold \"..\"", b)
	}
	if isDottedQuad(b) {
		return fmt.Sprintf("s3 bucket %q must not be an IP address", b)
	}
	for _, p := range []string{"xn--", "sthree-", "amzn-s3-demo-"} {
		if strings.HasPrefix(b, p) {
			return fmt.Sprintf("s3 bucket %q must not start with %q", b, p)
		}
	}
	for _, s := range []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"} {
		if strings.HasSuffix(b, s) {
			return fmt.Sprintf("s3 bucket %q must not end with %q", b, s)
		}
	}
	return ""
}

// isDottedQuad reports whether s is formatted as an IPv4 address: four
// dot-separated groups of digits.
func isDottedQuad(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// checkGSBucket checks a Google Cloud Storage bucket name (SPEC section 3).
//
// Decision: SPEC section 3 asks for 3 to 222 characters, but its own
// section 5 example resolves gs://b/p/outer.zip, so buckets of 1 and 2
// characters are accepted; the other rules apply to them unchanged.
func checkGSBucket(b string) string {
	n := len(b)
	if n < 1 || n > 222 {
		return fmt.Sprintf("gs bucket %q must be 1 to 222 characters", b)
	}
	for i := 0; i < n; i++ {
		if c := b[i]; !isLowerAlnum(c) && c != '_' && c != '.' && c != '-' {
			return fmt.Sprintf("gs bucket %q may hold only a-z, 0-9, \"_\", \".\" and \"-\"", b)
		}
	}
	if !isLowerAlnum(b[0]) || !isLowerAlnum(b[n-1]) {
		return fmt.Sprintf("gs bucket %q must start and end with a letter or digit", b)
	}
	for _, label := range strings.Split(b, ".") {
		switch {
		case label == "" || len(label) > 63:
			return fmt.Sprintf("gs bucket %q must be made of dot-separated parts of 1 to 63 characters", b)
		case label[0] == '-' || label[len(label)-1] == '-':
			return fmt.Sprintf("gs bucket %q has a part that starts or ends with \"-\"", b)
		}
	}
	return ""
}

func isAlnum(c byte) bool      { return isAlpha(c) || isDigit(c) }
func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || isDigit(c) }

// checkOCDBTVersion checks an ocdbt VERSION: v<N> or a UTC commit time.
func checkOCDBTVersion(v string) string {
	if v == "" {
		return `ocdbt:// needs a version (v<N> or a UTC time YYYY-MM-DDThh:mm:ss[.fraction]Z); write ocdbt: for the latest`
	}
	if n, ok := strings.CutPrefix(v, "v"); ok {
		if n == "" || n[0] == '0' || strings.TrimLeft(n, "0123456789") != "" {
			return fmt.Sprintf("ocdbt version %q must be v<N> with N a decimal number >= 1 without leading zeros", v)
		}
		if _, err := strconv.ParseUint(n, 10, 64); err != nil {
			return fmt.Sprintf("ocdbt version %q does not fit in 64 bits", v)
		}
		return ""
	}
	if !isCommitTime(v) {
		return fmt.Sprintf("ocdbt version %q must be v<N> or a UTC time YYYY-MM-DDThh:mm:ss[.fraction]Z", v)
	}
	return ""
}

// isCommitTime reports whether s is YYYY-MM-DDThh:mm:ss[.fraction]Z with
// valid date and time values.
func isCommitTime(s string) bool {
	const layout = "2006-01-02T15:04:05"
	if len(s) < len(layout)+1 || s[len(s)-1] != 'Z' {
		return false
	}
	base, frac := s[:len(layout)], s[len(layout):len(s)-1]
	for i, c := range []byte(base) {
		want := layout[i]
		if isDigit(want) != isDigit(c) || !isDigit(want) && want != c {
			return false
		}
	}
	if frac != "" {
		digits, ok := strings.CutPrefix(frac, ".")
		if !ok || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
			return false
		}
	}
	_, err := time.Parse(layout, base)
	return err == nil
}

// checkIcechunkRef checks an icechunk REF: branch.NAME, tag.NAME or a
// snapshot id.
func checkIcechunkRef(ref string) string {
	if strings.ContainsAny(ref, "[]") {
		return `"[" and "]" are allowed only around an IPv6 literal host and in a vendor authority; write %5B and %5D`
	}
	for _, prefix := range []string{"branch.", "tag."} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			if name == "" {
				return fmt.Sprintf("icechunk ref %q needs a name after %q", ref, prefix)
			}
			return ""
		}
	}
	if isSnapshotID(ref) {
		return ""
	}
	return fmt.Sprintf("icechunk ref %q must be branch.NAME, tag.NAME or a 20-character snapshot id (Crockford base-32, upper case)", ref)
}

// isSnapshotID reports whether s is an icechunk snapshot id: 20 characters
// of upper-case Crockford base-32.
func isSnapshotID(s string) bool {
	if len(s) != 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && !('A' <= c && c <= 'Z') || c == 'I' || c == 'L' || c == 'O' || c == 'U' {
			return false
		}
	}
	return true
}

// parseRange parses the path of a byte-range sub-URL, START-END.
func parseRange(s string) (start, end uint64, msg string) {
	a, b, ok := strings.Cut(s, "-")
	if !ok || a == "" || b == "" || strings.TrimLeft(a, "0123456789") != "" || strings.TrimLeft(b, "0123456789") != "" {
		return 0, 0, fmt.Sprintf("byte-range needs START-END in decimal, got %q", s)
	}
	start, err1 := strconv.ParseUint(a, 10, 64)
	end, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Sprintf("byte-range %q does not fit in 64 bits", s)
	}
	if end < start {
		return 0, 0, fmt.Sprintf("byte-range %q ends before it starts", s)
	}
	return start, end, ""
}

// checkPointer checks a json: path as an RFC 6901 JSON pointer.
func checkPointer(raw string) string {
	p := unescape(raw)
	if p != "" && p[0] != '/' {
		return fmt.Sprintf("json pointer %q must be empty or start with \"/\"", p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || p[i+1] != '0' && p[i+1] != '1') {
			return fmt.Sprintf("json pointer %q has a \"~\" that is not ~0 or ~1", p)
		}
	}
	return ""
}

// unescape decodes the %HH escapes of s, which must be well formed.
func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
