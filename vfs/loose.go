package vfs

import (
	"os"
	"path/filepath"
	"strings"
)

// ParseLoose parses a pipeline as a person types it: like [Parse], after
// percent-encoding the characters that SPEC section 1 says must be encoded
// (space, non-ASCII, control characters, `"` `<` `>` `\` `^` "`" `{` `}`,
// and "[" "]" outside an authority). So "file:/d/bf v2.zip|zip:世界.txt"
// parses as "file:/d/bf%20v2.zip|zip:%E4%B8%96%E7%95%8C.txt".
//
// The structural characters keep their meaning: "|" splits sub-URLs, "?"
// starts a query, "#" starts a fragment (an error) and "%" starts an
// escape. A "%" that is not followed by two hex digits cannot start one,
// so ParseLoose encodes it as "%25" ("100%.zip" names the file 100%.zip);
// "%41" stays the escape of "A". A literal "|", "#" or "?" in a name must
// still be typed "%7C", "%23" and "%3F", and a literal "%" before two hex
// digits "%25".
//
// A canonical pipeline holds none of the characters ParseLoose encodes, so
// ParseLoose(p.String()) gives p back, as Parse does. Errors are those of
// Parse, on the encoded text.
func ParseLoose(s string) (Pipeline, error) {
	return Parse(encodeLoose(s))
}

// ResolveLoose is [Pipeline.Resolve] of ref encoded as [ParseLoose]
// encodes its argument: a relative pipeline typed by a person, such as
// "dir with space/a.zip|zip:naïve.txt".
func (p Pipeline) ResolveLoose(ref string) (Pipeline, error) {
	return p.Resolve(encodeLoose(ref))
}

// FromPath returns the pipeline of the local file or directory path, made
// absolute against the working directory and cleaned: a "file:" sub-URL
// whose path percent-encodes every character that a sub-URL cannot hold
// raw, "%", "|", "#" and "?" included. So FromPath("100%.zip") in /d is
// "file:/d/100%25.zip" and FromPath("n_#.json") is "file:/d/n_%23.json".
// A path that ends in a separator keeps a trailing "/", which makes the
// pipeline a directory (SPEC section 2). On Windows the drive letter
// becomes the first segment ("file:/C:/d/a.zip").
func FromPath(path string) (Pipeline, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if len(path) > 0 && os.IsPathSeparator(path[len(path)-1]) && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || isPathChar(c) {
			b.WriteByte(c)
			continue
		}
		writeEscape(&b, c)
	}
	return Parse(b.String())
}

// isPathChar reports whether c may stand raw in a path of a sub-URL:
// unreserved, sub-delims, ":" and "@" (RFC 3986 pchar without escapes).
func isPathChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}

func writeEscape(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}

// encodeLoose percent-encodes what ParseLoose encodes, sub-URL by sub-URL.
func encodeLoose(s string) string {
	var b strings.Builder
	for i, sub := range strings.Split(s, "|") {
		if i > 0 {
			b.WriteByte('|')
		}
		encodeLooseSub(&b, sub, i == 0)
	}
	return b.String()
}

// encodeLooseSub encodes one sub-URL. "[" and "]" stay raw only in an
// authority: after "scheme://" (except memory:// and any scheme whose text
// after "//" is a path), or after a leading "//" of the first sub-URL,
// which may be a relative reference.
func encodeLooseSub(b *strings.Builder, sub string, first bool) {
	rest := sub
	authority := false
	if scheme, after, ok := strings.Cut(sub, ":"); ok && (isScheme(scheme) || scheme == dotdot) {
		b.WriteString(scheme)
		b.WriteByte(':')
		rest = after
		info, _ := lookupScheme(strings.ToLower(scheme))
		authority = strings.HasPrefix(rest, "//") && info.authority.form != authKey
	} else if first {
		authority = strings.HasPrefix(rest, "//")
	}
	if authority {
		b.WriteString("//")
		rest = rest[2:]
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case authority && (c == '/' || c == '?'):
			authority = false
			b.WriteByte(c)
		case c == '%':
			if i+2 < len(rest) && isHex(rest[i+1]) && isHex(rest[i+2]) {
				b.WriteByte(c)
			} else {
				writeEscape(b, c)
			}
		case c == '/' || c == '?' || c == '#' || isPathChar(c):
			b.WriteByte(c)
		case (c == '[' || c == ']') && authority:
			b.WriteByte(c)
		default:
			writeEscape(b, c)
		}
	}
}
