package complete

import "strings"

// BashReplies returns the lines that the bash script adds to COMPREPLY
// for line, the command line up to the cursor, with wordbreaks bash's
// COMP_WORDBREAKS. It splits line into words as bash does, and calls
// complete with the words after the program name, the last the one being
// completed; complete returns the candidates of that word and whether a
// lone candidate that goes on (a directory, an adapter: see Continues)
// takes no space after it.
//
// Each reply is the text that replaces what readline takes as the word
// being completed (which starts after an unclosed quote or the last
// unquoted word-break character, ":" and "|" among them), quoted for
// where it goes. A lone candidate that ends the argument gets a space, or,
// in a quote, the closing quote that readline adds (or that it leaves
// out, after text that ends in the quote character: then it is added
// here). A lone candidate that goes on in a quote comes twice, the second
// time with a trailing blank, so that readline keeps the quote open.
func BashReplies(line, wordbreaks string, complete func(args []string) (cands []string, noSpace bool)) []string {
	words := SplitLine(line).Words
	if len(words) < 2 {
		return nil
	}
	cands, noSpace := complete(words[1:])
	start := ReadlineStart(line, wordbreaks)
	pre := SplitLine(line[:start])
	done := pre.Words[len(pre.Words)-1] // the part of the word that stays
	if len(pre.Words) != len(words) {
		done = ""
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, done) {
			out = append(out, QuoteFor(pre.Quote, c[len(done):]))
		}
	}
	if len(out) == 1 {
		final := !noSpace || !Continues(cands[0])
		switch {
		case pre.Quote == 0 && final:
			out[0] += " "
		case pre.Quote != 0 && final && strings.HasSuffix(out[0], string(pre.Quote)):
			// Readline adds no closing quote after text that ends in
			// the quote character (a quoted one, as in '\'' or \"):
			// close it here.
			out[0] += string(pre.Quote)
		case pre.Quote != 0 && !final:
			// Readline closes the quote after a lone match: a second
			// one, which differs by a trailing blank, keeps it open for
			// what comes next.
			out = append(out, out[0]+" ")
		}
	}
	return out
}

// Continues reports whether a completed pipeline goes on: a directory, an
// adapter waiting for its path or its next sub-URL.
func Continues(s string) bool {
	return strings.HasSuffix(s, "/") || strings.HasSuffix(s, ":") || strings.HasSuffix(s, "|")
}
