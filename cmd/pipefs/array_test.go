package main

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs("../../../shared/fixtures/" + rel)
	if err != nil {
		t.Fatal(err)
	}
	return "file:" + filepath.ToSlash(p)
}

func sha16(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:16]
}

// The sha column of ARRAYS.md section 8.
func TestArrayRead(t *testing.T) {
	zarr3 := fixture(t, "zarr3/data.zarr") + "/"
	zarr3zip := fixture(t, "zarr3/data.zipped_from_parent.zarr.zip") + "|zip:data.zarr/"
	zarr2 := fixture(t, "zarr2/data.zarr") + "/"
	tests := []struct{ url, sha string }{
		{zarr3 + "|zarr3:1d.contiguous.gzip.i2", "ea99f710d9d0b8ba"},
		{zarr3zip + "|zarr3:1d.contiguous.gzip.i2", "ea99f710d9d0b8ba"},
		{zarr3 + "|zarr3:3d.chunked.mixed.i2.F", "58a54299e0e8d0a7"},
		{zarr2 + "|zarr2:1d.chunked.ragged.i2", "6ca637cc10a30392"},
		{zarr2 + "|zarr:1d.contiguous.b1", "507503b51960cced"},
		{zarr2 + "1d.contiguous.f4.be/", "dcddaac5238c2c60"}, // format detected
	}
	for _, tc := range tests {
		if got := sha16(mustRun(t, "array", "--read", tc.url)); got != tc.sha {
			t.Errorf("array --read %s: sha %s, want %s", tc.url, got, tc.sha)
		}
		if got := sha16(mustRun(t, "array", "--read", "--concurrency", "1", tc.url)); got != tc.sha {
			t.Errorf("array --read --concurrency 1 %s: sha %s, want %s", tc.url, got, tc.sha)
		}
	}
	if r := runCLI(t, "array", "--read", "--concurrency", "0", zarr2+"|zarr2:1d.chunked.ragged.i2"); r.code != 2 {
		t.Errorf("--concurrency 0: exit %d, want 2", r.code)
	}
	if got, want := mustRun(t, "array", "--box", "1:3", zarr3+"|zarr3:1d.contiguous.i4"), "\x02\x00\x00\x00\x03\x00\x00\x00"; got != want {
		t.Errorf("array --box 1:3 = %q, want %q", got, want)
	}
	if got, want := mustRun(t, "array", "--chunk", "1", zarr2+"|zarr2:1d.chunked.i2"), "\x03\x00\x04\x00"; got != want {
		t.Errorf("array --chunk 1 = %q, want %q", got, want)
	}
	desc := mustRun(t, "array", zarr3+"|zarr3:1d.contiguous.gzip.i2")
	for _, s := range []string{"zarr3", "array", "[4]", "int16", "gzip"} {
		if !strings.Contains(desc, s) {
			t.Errorf("array description lacks %q:\n%s", s, desc)
		}
	}
	if r := runCLI(t, "array", "--read", "--chunk", "0", zarr3); r.code != 2 {
		t.Errorf("--read with --chunk: exit %d, want 2", r.code)
	}
	if r := runCLI(t, "array", "--read", "--limit", "3", zarr3+"|zarr3:1d.contiguous.i4"); r.code != 1 || !strings.Contains(r.stderr, "limit") {
		t.Errorf("--read past --limit: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestTreeLabels(t *testing.T) {
	out := mustRun(t, "tree", fixture(t, "n5")+"/")
	for _, s := range []string{"n5_viewer_multiscale_modern/  [n5 group]", "s0/  [n5 array uint16 [20 10]]"} {
		if !strings.Contains(out, s) {
			t.Errorf("tree of the n5 fixtures lacks %q:\n%s", s, out)
		}
	}
}
