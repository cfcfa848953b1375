package main

import "github.com/pipefs/pipefs/internal/rfc3986"

// escapeRef writes a version or ref as the authority of a sub-URL, in
// canonical form: every byte but a letter, a digit and -._~!$&'()*+,;=
// is percent-encoded ("tag.it%20works!").
func escapeRef(id string) string { return rfc3986.Escape(id, rfc3986.IsRegName) }
