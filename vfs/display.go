package vfs

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Display returns the pipeline as people type it: its canonical text
// (String) with the percent escapes decoded that stand for a character the
// grammar never allows raw, so that decoding them cannot change what the
// text means. See [SubURL.Display].
func (p Pipeline) Display() string { return DisplayText(p.String()) }

// Display returns the sub-URL as people type it: its canonical text
// (String) with the percent escapes decoded that stand for a space, for
// one of `"<>\^`{}` or for a printable non-ASCII character encoded in
// UTF-8 ("zip:odd%20names/%C3%A9t%C3%A9.txt" displays as
// "zip:odd names/été.txt"). The characters that the grammar gives a
// meaning to or that are allowed raw stay escaped ("%7C" for "|", "%23",
// "%3F", "%25", "%2F", "%5B" and "%5D", and the escapes of unreserved
// characters, "%2E" among them), and so do control characters, invalid
// UTF-8 and non-ASCII characters that do not print (U+00A0, bidirectional
// controls). The display form is for messages; it is not a pipeline that
// Parse accepts when it holds a decoded character, and String stays the
// form to store and compare.
func (u SubURL) Display() string { return DisplayText(u.String()) }

// DisplayText returns the display form of the text of a pipeline or
// sub-URL (see [SubURL.Display]). Text that is not well formed is
// returned decoded where it is well formed, so that the function is safe
// on any string.
func DisplayText(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c, ok := escapedByte(s, i)
		if !ok {
			b.WriteByte(s[i])
			i++
			continue
		}
		if c < utf8.RuneSelf {
			if c == ' ' || strings.IndexByte("\"<>\\^`{}", c) >= 0 {
				b.WriteByte(c)
			} else {
				b.WriteString(s[i : i+3])
			}
			i += 3
			continue
		}
		// A non-ASCII character: the escapes of its UTF-8 bytes.
		var enc [utf8.UTFMax]byte
		n, j := 0, i
		for n < len(enc) {
			d, ok := escapedByte(s, j)
			if !ok || d < utf8.RuneSelf || n > 0 && !utf8.RuneStart(enc[0]) {
				break
			}
			enc[n] = d
			n++
			j += 3
			if utf8.FullRune(enc[:n]) {
				break
			}
		}
		r, size := utf8.DecodeRune(enc[:n])
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			// Keep the first escape and look again after it.
			b.WriteString(s[i : i+3])
			i += 3
			continue
		}
		b.WriteRune(r)
		i += 3 * size
	}
	return b.String()
}

// escapedByte returns the byte that the escape at s[i] stands for.
func escapedByte(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != '%' || !isHex(s[i+1]) || !isHex(s[i+2]) {
		return 0, false
	}
	return unhex(s[i+1])<<4 | unhex(s[i+2]), true
}
