package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is what pipefs --version prints: the module's version (a tag
// for go install pkg@version, "(devel)" for a build in a checkout), the
// VCS revision and time a checkout build records, whether the tree had
// changes, and the Go version and platform.
func version() string {
	v, rev := "(unknown)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		var at, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			}
		}
		if rev != "" {
			rev = fmt.Sprintf(" (%s%s%s)", rev[:min(12, len(rev))], strings.TrimSuffix(" "+at, " "), modified)
		}
	}
	return fmt.Sprintf("%s%s %s %s/%s", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
