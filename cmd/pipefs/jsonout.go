package main

import (
	"bytes"
	"encoding/json"
	"io"
)

// printJSON writes v to w as the --json flag of a command prints it:
// indented by two spaces, "<", ">" and "&" as they are, and a newline
// after it.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// marshalJSON is json.Marshal without the escaping of "<", ">" and "&",
// which NumPy type strings hold.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
