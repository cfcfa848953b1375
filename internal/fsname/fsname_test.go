package fsname

import "testing"

func TestSplitJoin(t *testing.T) {
	for _, tc := range []struct {
		name, dir, base string
	}{
		{name: "a", dir: ".", base: "a"},
		{name: "a/b", dir: "a", base: "b"},
		{name: "a/b/c.txt", dir: "a/b", base: "c.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if dir, base := Split(tc.name); dir != tc.dir || base != tc.base {
				t.Errorf("Split(%q) = %q, %q, want %q, %q", tc.name, dir, base, tc.dir, tc.base)
			}
			if got := Parent(tc.name); got != tc.dir {
				t.Errorf("Parent(%q) = %q, want %q", tc.name, got, tc.dir)
			}
			if got := Join(tc.dir, tc.base); got != tc.name {
				t.Errorf("Join(%q, %q) = %q, want %q", tc.dir, tc.base, got, tc.name)
			}
		})
	}
}

func TestValidBase(t *testing.T) {
	for s, want := range map[string]bool{"a": true, "a.b": true, "": false, ".": false, "..": false, "a/b": false} {
		if got := ValidBase(s); got != want {
			t.Errorf("ValidBase(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestDecompressed(t *testing.T) {
	for _, tc := range []struct{ format, in, want string }{
		{"gzip", "a.gz", "a"},
		{"gzip", "a.tar.gz", "a.tar"},
		{"gzip", "a.tgz", "a.tar"},
		{"gzip", ".gz", ".gz"},
		{"gzip", ".tgz", ".tgz"},
		{"gzip", "a.GZ", "a.GZ"},
		{"gzip", "a.zst", "a.zst"},
		{"gzip", "a", "a"},
		{"zstd", "a.zst", "a"},
		{"zstd", "a.zstd", "a"},
		{"zstd", "a.tzst", "a.tar"},
		{"zstd", "a.tar.zst", "a.tar"},
		{"zstd", ".zst", ".zst"},
		{"zstd", ".zstd", ".zstd"},
		{"zstd", "a.gz", "a.gz"},
		{"xz", "a.xz", "a"},
		{"xz", "a.txz", "a.tar"},
		{"xz", ".txz", ".txz"},
		{"xz", ".xz", ".xz"},
		{"bzip2", "a.bz2", "a"},
		{"bzip2", "a.tbz2", "a.tar"},
		{"bzip2", "a.tbz", "a.tar"},
		{"bzip2", "a.tar.bz2", "a.tar"},
		{"bzip2", ".bz2", ".bz2"},
		{"bzip2", ".tbz", ".tbz"},
		{"lz4", "a.lz4", "a.lz4"},
	} {
		if got := Decompressed(tc.format, tc.in); got != tc.want {
			t.Errorf("Decompressed(%q, %q) = %q, want %q", tc.format, tc.in, got, tc.want)
		}
	}
}
