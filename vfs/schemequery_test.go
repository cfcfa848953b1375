package vfs_test

import (
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// TestWithVersion checks that a version becomes the authority of a store's
// sub-URL as its scheme's grammar writes it, and is refused where the
// grammar names no version or refuses this one.
func TestWithVersion(t *testing.T) {
	for _, tc := range []struct {
		in, version, want string
	}{
		{"ocdbt:", "v3", "ocdbt://v3"},
		{"ocdbt:k/x", "v3", "ocdbt://v3/k/x"},
		{"ocdbt://v2/k", "v3", "ocdbt://v3/k"},
		{"ocdbt://v2/k", "", "ocdbt:/k"},
		{"ocdbt:", "2025-01-30T21:32:58Z", "ocdbt://2025-01-30T21:32:58Z"},
		{"icechunk:", "tag.it works!", "icechunk://tag.it%20works!"},
		{"icechunk:/", "branch.a/b", "icechunk://branch.a%2Fb/"},
		{"icechunk:", "0123456789ABCDEFGHJK", "icechunk://0123456789ABCDEFGHJK"},
		{"pipefs.store:x", "r|1", "pipefs.store://r%7C1/x"},
	} {
		u, err := vfs.ParseAdapter(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := u.WithVersion(tc.version)
		if err != nil || got.String() != tc.want {
			t.Errorf("%s.WithVersion(%q) = %s, %v; want %s", tc.in, tc.version, got, err, tc.want)
			continue
		}
		if p, err := vfs.Parse("memory:|" + got.String()); err != nil || p[1] != got {
			t.Errorf("%s does not parse to itself: %v, %v", got, p, err)
		}
		if v := got.Version(); got.Scheme != "pipefs.store" && v != tc.version {
			t.Errorf("%s.Version() = %q, want %q", got, v, tc.version)
		}
	}
	for _, tc := range []struct{ in, version string }{
		{"ocdbt:", "v0"},
		{"ocdbt:", "main"},
		{"icechunk:", "main"},
		{"zip:", "v1"},
		{"zip:", ""},
		{"gzip:", "v1"},
	} {
		u, err := vfs.ParseAdapter(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := u.WithVersion(tc.version); !errors.Is(err, vfs.ErrSyntax) {
			t.Errorf("%s.WithVersion(%q) = %s, %v; want a syntax error", tc.in, tc.version, got, err)
		}
	}
	for _, root := range []string{"file:/a", "s3://bucket/k", "memory:a"} {
		if _, err := vfs.MustParse(root)[0].WithVersion(""); err == nil {
			t.Errorf("%s takes a version", root)
		}
	}
}

// TestSchemeStart checks the start of a sub-URL at the top of a scheme's
// tree, and which schemes take a path, as the grammar gives them.
func TestSchemeStart(t *testing.T) {
	for s, want := range map[string]string{
		"file": "file:/", "FILE": "file:/", "memory": "memory:", "http": "http://", "s3": "s3://",
		"s3+https": "s3+https://", "gs": "gs://", "zip": "zip:", "ocdbt": "ocdbt:",
		"pipefs.tar": "pipefs.tar:", "acme.root": "acme.root:", "no scheme": "", "..": "",
	} {
		if got := vfs.SchemeStart(s); got != want {
			t.Errorf("SchemeStart(%q) = %q, want %q", s, got, want)
		}
	}
	for s, want := range map[string]bool{
		"zip": true, "file": true, "gzip": false, "zstd": false, "PNG": false, "neuroglancer-precomputed": false,
		"byte-range": true, "json": true, "pipefs.bzip2": true, "acme.x": true, "no scheme": false,
	} {
		if got := vfs.SchemeTakesPath(s); got != want {
			t.Errorf("SchemeTakesPath(%q) = %v, want %v", s, got, want)
		}
	}
}
