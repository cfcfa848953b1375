package main

import (
	"encoding/json"
	"io"
)

// printJSON writes v to w as the --json flag of a command prints it:
// indented by two spaces, "<", ">" and "&" as they are, and a newline
// after it. Keys are lower-case words joined by "_", as package describe
// says.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
