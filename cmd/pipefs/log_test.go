package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLogOCDBT(t *testing.T) {
	db, err := filepath.Abs("../../../shared/fixtures/ocdbt/multi_version_low_arity.ocdbt")
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "log", "file:"+db+"/")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 201 {
		t.Fatalf("log printed %d lines, want a header and 200 versions", len(lines))
	}
	if got, want := strings.Fields(lines[1]), []string{"v1", "2025-01-30T21:32:59.931662761Z", "1"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("first version line = %q, want %q", got, want)
	}
	// The time printed opens that version.
	v8 := strings.Fields(lines[8])
	if got := mustRun(t, "cat", "file:"+db+"/|ocdbt://"+v8[1]+"/key8"); got != "version 8" {
		t.Errorf("cat at the commit time of v8 = %q, want %q", got, "version 8")
	}
	if r := runCLI(t, "log", "file:"+filepath.Dir(db)+"/"); r.code != 1 || !strings.Contains(r.stderr, "not a versioned store") {
		t.Errorf("log of a plain directory: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestLogIcechunk(t *testing.T) {
	repo, err := filepath.Abs("../../../shared/fixtures/icechunk/test-repo-v2")
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "log", "file:"+repo+"/")
	want := []string{"2768FV3XW5ZXYM84XNNG", "ZA24GZGPNK3GH682Q1R0", "7T7DSS71H2JNBBZQ9M8G", "1CECHNKREP0F1RSTCMT0"}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want)+1 {
		t.Fatalf("log printed:\n%s\nwant a header and %d snapshots", out, len(want))
	}
	for i, id := range want {
		if f := strings.Fields(lines[i+1]); f[0] != id {
			t.Errorf("snapshot %d = %s, want %s", i, f[0], id)
		}
	}
	if !strings.HasSuffix(lines[4], "Repository initialized") {
		t.Errorf("last line %q lacks the first commit's message", lines[4])
	}
}
