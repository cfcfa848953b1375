package listfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names on a terminal (Name, ShellQuote). Member names come from the archive, which may be
// hostile: an escape sequence in a name must not reach a terminal, and a
// name with a newline must not read as two entries.
//
// On a terminal, ls, tree and stat quote a name as GNU ls does by default
// there (its "shell-escape" style): a name that a shell would take apart
// is put in single quotes ('a b'), a name holding a single quote in double
// quotes when that is safe ("it's"), and a byte that is not printable
// (a control character, an invalid UTF-8 byte, a rune that is not graphic
// such as U+202E) is written as a $'...' escape: 'a'$'\n''b',
// ''$'\033''[31mred'. Pasted into a POSIX shell (bash, zsh, ksh), the
// quoted name is the name.
//
// Elsewhere (a pipe, a file), a name is written as it is, as GNU ls does,
// unless it holds a byte that is not printable: then it is quoted as on a
// terminal, so that a listing never carries raw control characters. For
// exact names, scripts use ls -0 or ls --url.
//
// Two choices differ from GNU ls: a rune that is not graphic by Go's
// unicode.IsGraphic (format characters such as the bidirectional
// overrides, zero-width joiners) is escaped although glibc calls it
// printable, and a name that holds both a single quote and an escape is
// written without the empty '' pair that GNU ls sometimes puts first.

// Name is name as ls, tree and stat print it to a terminal (tty) or
// elsewhere: quoted on a terminal, as it is elsewhere unless it holds a
// byte that is not printable (see ShellQuote).
func Name(name string, tty bool) string {
	if tty || hasUnprintable(name) {
		return ShellQuote(name)
	}
	return name
}

// hasUnprintable reports whether s holds a byte that ShellQuote escapes.
func hasUnprintable(s string) bool {
	// Printable ASCII first, a byte at a time, as most names are.
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	for i < len(s) {
		n, ok := printableAt(s, i)
		if !ok {
			return true
		}
		i += n
	}
	return false
}

// printableAt returns the length of the rune at s[i] and whether it is
// printable; an invalid byte has length 1 and is not.
func printableAt(s string, i int) (int, bool) {
	c := s[i]
	if c < utf8.RuneSelf {
		return 1, c >= 0x20 && c != 0x7f
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return 1, false
	}
	return n, unicode.IsGraphic(r)
}

// ShellQuote quotes s in GNU ls's shell-escape style; a name that needs
// no quoting comes back as it is.
func ShellQuote(s string) string {
	if !needsQuote(s) {
		return s
	}
	if !hasUnprintable(s) {
		if s == "" || !strings.Contains(s, "'") {
			return "'" + s + "'"
		}
		if !strings.ContainsAny(s, "$`\\\"!") {
			return `"` + s + `"`
		}
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		// A run of printable text, single-quoted.
		j := i
		for j < len(s) {
			n, ok := printableAt(s, j)
			if !ok {
				break
			}
			j += n
		}
		if j > i {
			b.WriteString("'" + strings.ReplaceAll(s[i:j], "'", `'\''`) + "'")
		} else if i == 0 {
			b.WriteString("''") // as GNU ls starts a name that starts with an escape
		}
		if j == len(s) {
			break
		}
		// A run of unprintable bytes, as $'...' escapes.
		b.WriteString("$'")
		for j < len(s) {
			n, ok := printableAt(s, j)
			if ok {
				break
			}
			for _, c := range []byte(s[j : j+n]) {
				writeCEscape(&b, c)
			}
			j += n
		}
		b.WriteString("'")
		i = j
	}
	return b.String()
}

// needsQuote reports whether a shell would not read s as one word as it
// is, by the rules of GNU ls: "#" and "~" matter only at the start.
func needsQuote(s string) bool {
	if s == "" {
		return true // an empty word vanishes
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c >= utf8.RuneSelf:
		case strings.IndexByte("%+,-./:@]_{}", c) >= 0:
		case (c == '#' || c == '~') && i > 0:
		default:
			return true
		}
	}
	return hasUnprintable(s)
}

// writeCEscape writes byte c as it stands in a $'...' string.
func writeCEscape(b *strings.Builder, c byte) {
	if e := strings.IndexByte("\a\b\t\n\v\f\r", c); e >= 0 {
		b.WriteByte('\\')
		b.WriteByte("abtnvfr"[e])
		return
	}
	b.WriteByte('\\')
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}
