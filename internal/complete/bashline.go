package complete

import (
	"os"
	"strings"
)

// A Line is what a bash command line holds before the cursor, read as
// bash reads it.
type Line struct {
	Words []string // the words after quote removal; the last is the one being completed
	Quote byte     // the quote left open at the end: 0, '\'' or '"'
}

// SplitLine splits line into words as bash does: blanks separate words;
// single quotes, double quotes, $'...' and backslashes quote; an unquoted
// "~/" that starts a word is $HOME/; an unquoted ";", "&" or "|" starts a
// new command, whose words replace the earlier ones. The last word is the
// one under the cursor, "" after a blank.
func SplitLine(line string) Line {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote byte
		ansi  bool // the quote is $'...'
	)
	end := func() {
		if in {
			words = append(words, cur.String())
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch quote {
		case '\'':
			switch {
			case c == '\'':
				quote, ansi = 0, false
			case ansi && c == '\\' && i+1 < len(line):
				i++
				cur.WriteString(ansiEscape(line[i]))
			default:
				cur.WriteByte(c)
			}
			continue
		case '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0:
				i++
				cur.WriteByte(line[i])
			default:
				cur.WriteByte(c)
			}
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			end()
		case c == ';' || c == '&' || c == '|':
			end()
			words = nil
		case c == '\\':
			in = true
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					cur.WriteByte(line[i])
				}
			}
		case c == '\'' || c == '"':
			in = true
			quote = c
		case c == '~' && !in && strings.HasPrefix(line[i:], "~/") && os.Getenv("HOME") != "":
			in = true
			cur.WriteString(strings.TrimSuffix(os.Getenv("HOME"), "/"))
		case c == '$' && i+1 < len(line) && line[i+1] == '\'':
			in = true
			quote, ansi = '\'', true
			i++
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	words = append(words, cur.String())
	return Line{Words: words, Quote: quote}
}

// ansiEscape returns what \c means inside $'...', for the escapes that a
// name may need.
func ansiEscape(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case 'a':
		return "\a"
	case 'e', 'E':
		return "\x1b"
	}
	return string(c)
}

// ReadlineStart returns where readline starts the text that a completion
// replaces in line (the text before the cursor): after an unclosed quote,
// else after the last unquoted character of wordbreaks (bash's
// COMP_WORDBREAKS, which holds ":" and "|" by default), else at the start
// of the word. It follows readline's _rl_find_completion_word with bash's
// char_is_quoted.
func ReadlineStart(line, wordbreaks string) int {
	end := len(line)
	point := end
	var quote byte
	found, next := false, false
	for i := 0; i < end; i++ {
		c := line[i]
		if next {
			next = false
			continue
		}
		if quote != '\'' && c == '\\' {
			next, found = true, true
			continue
		}
		if quote != 0 {
			if c == quote {
				quote, point = 0, end
			}
		} else if c == '\'' || c == '"' {
			quote, point, found = c, i+1, true
		}
	}
	if point == end && quote == 0 {
		for point > 0 {
			point--
			if strings.IndexByte(wordbreaks, line[point]) < 0 {
				continue
			}
			if found && isQuoted(line, point) {
				continue
			}
			break
		}
	}
	if point < end {
		c := line[point]
		if strings.IndexByte(wordbreaks, c) >= 0 && (!found || !isQuoted(line, point)) {
			point++
		}
	}
	return point
}

// isQuoted reports whether the character at index i of line is quoted,
// as bash's char_is_quoted says: escaped by a backslash, or inside quotes
// (the quotes themselves count).
func isQuoted(line string, i int) bool {
	for j := 0; j <= i; j++ {
		switch line[j] {
		case '\\':
			j++
			if j >= i {
				return true
			}
		case '\'', '"':
			q := line[j]
			k := j + 1
			for k < len(line) && line[k] != q {
				if q == '"' && line[k] == '\\' {
					k++
				}
				k++
			}
			if k >= i {
				return true
			}
			j = k
		}
	}
	return false
}

// QuoteFor writes s so that bash reads it back as s where it is inserted:
// inside an open single or double quote (quote), or unquoted.
func QuoteFor(quote byte, s string) string {
	switch quote {
	case '\'':
		return strings.ReplaceAll(s, "'", `'\''`)
	case '"':
		return dquoteEscaper.Replace(s)
	}
	if strings.ContainsAny(s, "\n\t\r\x1b\a") {
		return ansiQuote(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(" '\"\\|&;()<>$`*?[]{}!#~", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// dquoteEscaper quotes text for inside double quotes. A "!" is taken out
// of them ("\!"), where interactive bash would expand it from the
// history.
var dquoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`", "!", `"\!"`)

// ansiQuote writes s as $'...'.
func ansiQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\t", `\t`, "\r", `\r`, "\x1b", `\E`, "\a", `\a`)
	return "$'" + r.Replace(s) + "'"
}
