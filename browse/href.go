package browse

import "strings"

// hrefEscape escapes one path segment of a link as Python's
// urllib.parse.quote does for the links of http.server's listings: every
// byte but ASCII letters, digits and "_.-~" is percent-encoded, so that a
// crawler that reads a listing's links as text, without decoding HTML
// entities (fsspec's HTTPFileSystem), sees the same names as there.
func hrefEscape(seg string) string {
	var b strings.Builder
	for i := range len(seg) {
		c := seg[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-' || c == '~' {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
