package complete

import (
	"fmt"
	"strings"
)

// escapeEntry writes an entry name as a path segment of a pipeline that
// a person types: the characters with a structural meaning, "%", "|", "#"
// and "?", and control characters (a newline or a tab would split or cut
// the candidate in the completion protocol) are percent-encoded; the rest
// is left as it is, which vfs.ParseLoose reads.
func escapeEntry(name string) string {
	name = entryEscaper.Replace(name)
	if !strings.ContainsFunc(name, isControl) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if c := name[i]; isControl(rune(c)) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isControl reports whether r is an ASCII control character.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

var entryEscaper = strings.NewReplacer("%", "%25", "|", "%7C", "#", "%23", "?", "%3F")
