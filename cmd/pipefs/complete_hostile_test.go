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

// TestCompleteQuotesInNames completes names that hold the quote the line
// is in, shell syntax and a "!": a lone name that ends the argument is
// closed, since readline adds no closing quote after the one that ends
// the inserted text, and a "!" in double quotes is left out of them,
// where bash would expand it from the history when the line runs.
func TestCompleteQuotesInNames(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{
		"h.zip": zipOf(t,
			entry{name: "q'$(touch x)'", body: "1"},
			entry{name: `d"$(touch x)"`, body: "2"},
			entry{name: "!!touch x", body: "3"},
			entry{name: "b`touch x`", body: "4"},
		),
	})
	t.Chdir(dir)
	tests := []struct {
		line string
		want []string
	}{
		{"pipefs cat 'h.zip|zip:q", []string{`h.zip|zip:q'\''$(touch x)'\'''`}},
		{"pipefs cat 'h.zip|zip:b", []string{"h.zip|zip:b`touch x`"}},
		{`pipefs cat "h.zip|zip:d`, []string{`h.zip|zip:d\"\$(touch x)\""`}},
		{`pipefs cat "h.zip|zip:q`, []string{`h.zip|zip:q'\$(touch x)'`}},
		{`pipefs cat "h.zip|zip:!`, []string{`h.zip|zip:"\!""\!"touch x`}},
		{`pipefs cat "h.zip|zip:b`, []string{"h.zip|zip:b\\`touch x\\`"}},
		{`pipefs cat h.zip\|zip:!`, []string{`\!\!touch\ x `}},
	}
	for _, tc := range tests {
		r := runCLI(t, completeBashCmd, bashWordbreaks, tc.line)
		got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.code != 0 || !slices.Equal(got, tc.want) {
			t.Errorf("complete the line %s: exit %d, stderr %q\ngot  %q\nwant %q", tc.line, r.code, r.stderr, got, tc.want)
		}
	}
}
