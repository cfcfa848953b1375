package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal; /dev/null and other
// character devices are not.
func isTerminal(w io.Writer) bool {
	if o, ok := w.(*output); ok {
		return o.terminal()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
