package main

import (
	"archive/tar"
	"bytes"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// TestHelpListsRegisteredSchemes checks that pipefs --help lists every
// registered scheme with its summary, roots apart from adapters, and that
// the binary registers every standard scheme that a package implements.
func TestHelpListsRegisteredSchemes(t *testing.T) {
	out := mustRun(t, "--help")
	roots := helpSection(t, out, "Roots (the first sub-URL):")
	adapters := helpSection(t, out, "Adapters (every later sub-URL):")
	registered := vfs.DefaultRegistry.Schemes()
	for _, s := range registered {
		list := adapters
		if vfs.IsRootScheme(s) {
			list = roots
		}
		if got, want := list[s+":"], vfs.DefaultRegistry.Summary(s); got != want || want == "" {
			t.Errorf("pipefs --help lists %s: as %q, want %q", s, got, want)
		}
	}
	if n := len(roots) + len(adapters); n != len(registered) {
		t.Errorf("pipefs --help lists %d schemes, the registry %d", n, len(registered))
	}
	for _, s := range vfs.StandardSchemes() {
		if vfs.SchemePackage(s) != "" && !strings.Contains(out, "\n  "+s+": ") {
			t.Errorf("pipefs --help does not list %s:, which %s implements", s, vfs.SchemePackage(s))
		}
	}
}

// helpSection returns the lines of the section of help text out that
// follows the line title, up to an empty line, as the first word of each
// line to the rest.
func helpSection(t *testing.T, out, title string) map[string]string {
	t.Helper()
	_, sec, ok := strings.Cut(out, "\n"+title+"\n")
	if !ok {
		t.Fatalf("help has no section %q:\n%s", title, out)
	}
	sec, _, _ = strings.Cut(sec, "\n\n")
	m := map[string]string{}
	for _, line := range strings.Split(sec, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		m[f[0]] = strings.Join(f[1:], " ")
	}
	return m
}

// TestCompleteSchemes checks that the completion of a sub-URL after "|"
// offers the adapters that fit the base, else, for a prefix that none of
// them has, the registered adapters that read the base's kind, and that a
// file whose extension names a registered container format is offered
// with its adapter.
func TestCompleteSchemes(t *testing.T) {
	zipURL := site(t, "cli/schemes")
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	if err := tw.WriteHeader(&tar.Header{Name: "a.txt", Mode: 0o644, Size: 1}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte("a"))
	tw.Close()
	if err := memroot.WriteFile("cli/schemes/b.tar", tarball.Bytes()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		out  string // completions, then the directive
	}{
		{"the detected adapter", []string{"ls", zipURL + "|z"}, zipURL + "|zip:\n:6\n"},
		{"another adapter of files", []string{"ls", zipURL + "|zs"}, zipURL + "|zstd:\n:6\n"},
		{"an upper-case prefix", []string{"ls", zipURL + "|PIPEFS.T"}, zipURL + "|pipefs.tar:\n:6\n"},
		{"no adapter", []string{"ls", zipURL + "|nothing"}, ":6\n"},
		{"no root after a pipe", []string{"ls", zipURL + "|fil"}, ":6\n"},
		{"a tar file", []string{"ls", "memory:cli/schemes/b"}, "memory:cli/schemes/b.tar\nmemory:cli/schemes/b.tar|pipefs.tar:\n:6\n"},
		{"into the tar file", []string{"ls", "memory:cli/schemes/b.tar|pipefs.tar:"}, "memory:cli/schemes/b.tar|pipefs.tar:a.txt\n:6\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"__complete"}, tc.args...)...)
			if r.code != 0 || r.stdout != tc.out {
				t.Errorf("complete %q: exit %d\n%s\nwant:\n%s", tc.args, r.code, r.stdout, tc.out)
			}
		})
	}
	// A file that no format matches and no extension names: every
	// adapter that reads a file, none that reads a directory.
	if err := memroot.WriteFile("cli/schemes/plain", []byte("plain text")); err != nil {
		t.Fatal(err)
	}
	all := runCLI(t, "__complete", "ls", "memory:cli/schemes/plain|")
	for _, s := range vfs.DefaultRegistry.Schemes() {
		base, _, _ := vfs.SchemeKinds(s)
		want := !vfs.IsRootScheme(s) && base != vfs.KindDirectory
		if got := strings.Contains(all.stdout, "memory:cli/schemes/plain|"+s+":\n"); got != want {
			t.Errorf("completion after a plain file's | offers %s: %v, want %v", s, got, want)
		}
	}
}
