package main

import (
	"slices"
	"strings"
	"testing"
)

// TestCompleteControlCharacters completes the members of an archive
// whose names hold a newline and a tab, which would split a candidate
// into two lines (or cut it at its description): they are completed
// percent-encoded, as a pipeline reads them back, in every quoting.
func TestCompleteControlCharacters(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{
		"h.zip": zipOf(t, entry{name: "a\nrm -rf x", body: "1"}, entry{name: "b\tc", body: "2"}),
	})
	t.Chdir(dir)
	tests := []struct {
		line string
		want []string
	}{
		{"pipefs cat 'h.zip|zip:", []string{"h.zip|zip:a%0Arm -rf x", "h.zip|zip:b%09c"}},
		{`pipefs cat "h.zip|zip:`, []string{"h.zip|zip:a%0Arm -rf x", "h.zip|zip:b%09c"}},
		{`pipefs cat h.zip\|zip:`, []string{`a%0Arm\ -rf\ x`, "b%09c"}},
		{`pipefs cat h.zip\|zip:b`, []string{"b%09c "}},
	}
	for _, tc := range tests {
		r := runCLI(t, completeBashCmd, bashWordbreaks, tc.line)
		got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.code != 0 || !slices.Equal(got, tc.want) {
			t.Errorf("complete the line %s: exit %d, stderr %q\ngot  %q\nwant %q", tc.line, r.code, r.stderr, got, tc.want)
		}
	}
	if got := mustRun(t, "cat", "h.zip|zip:a%0Arm -rf x"); got != "1" {
		t.Errorf("cat of the completed name: %q", got)
	}
}
