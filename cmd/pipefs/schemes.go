package main

import (
	"fmt"
	"strings"

	"github.com/pipefs/pipefs/vfs"
)

// schemeHelp returns the part of the help text that lists the schemes
// registered in reg, roots first, each with its one-line summary.
func schemeHelp(reg *vfs.Registry) string {
	var roots, adapters []string
	width := 0
	for _, s := range reg.Schemes() {
		if reg.Root(s) != nil {
			roots = append(roots, s)
		} else {
			adapters = append(adapters, s)
		}
		width = max(width, len(s)+1)
	}
	var b strings.Builder
	list := func(title string, schemes []string) {
		if len(schemes) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, s := range schemes {
			line := fmt.Sprintf("  %-*s  %s", width, s+":", reg.Summary(s))
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	list("Roots (the first sub-URL)", roots)
	list("Adapters (every later sub-URL)", adapters)
	return b.String()
}
