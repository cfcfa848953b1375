package vfs

import (
	"slices"
	"strings"
	"testing"
)

func TestSchemePackage(t *testing.T) {
	const m = "github.com/pipefs/pipefs/"
	want := map[string]string{
		"file":                     m + "roots/fileroot",
		"memory":                   m + "roots/memroot",
		"http":                     m + "roots/httproot",
		"https":                    m + "roots/httproot",
		"s3":                       m + "roots/s3root",
		"s3+http":                  m + "roots/s3root",
		"s3+https":                 m + "roots/s3root",
		"gs":                       m + "roots/gsroot",
		"zip":                      m + "adapters/zipadapter",
		"gzip":                     m + "adapters/gzipadapter",
		"zstd":                     m + "adapters/zstdadapter",
		"byte-range":               m + "adapters/rangeadapter",
		"json":                     m + "adapters/jsonadapter",
		"ocdbt":                    m + "adapters/ocdbtadapter",
		"icechunk":                 m + "adapters/icechunkadapter",
		"zarr":                     m + "adapters/zarradapter",
		"zarr2":                    m + "adapters/zarradapter",
		"zarr3":                    m + "adapters/zarradapter",
		"n5":                       m + "adapters/n5adapter",
		"neuroglancer-precomputed": m + "adapters/precomputedadapter",
		"pipefs.tar":               m + "adapters/taradapter",
		"pipefs.bzip2":             m + "adapters/bzip2adapter",
		"pipefs.xz":                m + "adapters/xzadapter",
		"hdf5":                     "",
		"avif":                     "",
		"bmp":                      "",
		"jpeg":                     "",
		"png":                      "",
		"tiff":                     "",
		"webp":                     "",
	}
	all := StandardSchemes()
	if len(all) != len(want) {
		t.Errorf("StandardSchemes() = %q, want the %d schemes of this test", all, len(want))
	}
	for _, s := range all {
		w, ok := want[s]
		if !ok {
			t.Errorf("StandardSchemes() lists %q, which this test does not know", s)
		}
		for _, in := range []string{s, strings.ToUpper(s)} {
			if got := SchemePackage(in); got != w {
				t.Errorf("SchemePackage(%q) = %q, want %q", in, got, w)
			}
			if SchemeSummary(in) == "" {
				t.Errorf("SchemeSummary(%q) is empty", in)
			}
		}
	}
	for _, s := range []string{"", "..", "tar", "ftp", "acme.thing", "pipefs.other", "zip:", " zip"} {
		if got := SchemePackage(s); got != "" {
			t.Errorf("SchemePackage(%q) = %q, want \"\"", s, got)
		}
		if got := SchemeSummary(s); got != "" {
			t.Errorf("SchemeSummary(%q) = %q, want \"\"", s, got)
		}
	}
	for s, w := range map[string]string{
		"zip":        "zip archive",
		"gzip":       "gzip stream (multi-member)",
		"byte-range": "bytes [start, end) of a file",
		"pipefs.tar": "tar archive",
	} {
		if got := SchemeSummary(s); got != w {
			t.Errorf("SchemeSummary(%q) = %q, want %q", s, got, w)
		}
	}
}

func TestStandardSchemes(t *testing.T) {
	got := StandardSchemes()
	if !slices.IsSorted(got) {
		t.Errorf("StandardSchemes() = %q, not sorted", got)
	}
	for _, s := range got {
		if IsRootScheme(s) == IsAdapterScheme(s) && !IsVendorScheme(s) {
			t.Errorf("StandardSchemes() lists %q, which is neither a root, an adapter nor a vendor scheme", s)
		}
	}
	for _, s := range []string{"file", "gs", "zip", "zarr3", "webp", "pipefs.tar", "pipefs.bzip2", "pipefs.xz"} {
		if !slices.Contains(got, s) {
			t.Errorf("StandardSchemes() = %q, without %q", got, s)
		}
	}
	got[0] = "changed"
	if StandardSchemes()[0] == "changed" {
		t.Error("StandardSchemes returns the table's own slice")
	}
}

// TestVendorRows checks that a vendor scheme with a row of its own parses
// as it would without one.
func TestVendorRows(t *testing.T) {
	for _, r := range schemeRows {
		if r.role != roleVendor || r.yields != KindUnknown {
			continue
		}
		base, yields, ok := SchemeKinds(r.name)
		if !ok || base != KindUnknown || yields != KindUnknown {
			t.Errorf("SchemeKinds(%q) = %v, %v, %v; want unknown, unknown, true", r.name, base, yields, ok)
		}
		for _, rest := range []string{":", ":a/b", ":/a?q", "://[h]/p?q?r", ":@x", "://"} {
			for _, in := range []string{r.name + rest, "file:/d/|" + r.name + rest + "|zip:", "gs://bkt|" + r.name + rest + "|zarr3:"} {
				want, wantErr := Parse(strings.ReplaceAll(in, r.name, "acme.thing"))
				got, err := Parse(in)
				if (err == nil) != (wantErr == nil) {
					t.Errorf("Parse(%q) error %v, but %v with a vendor scheme without a row", in, err, wantErr)
					continue
				}
				if err == nil && got.String() != strings.ReplaceAll(want.String(), "acme.thing", r.name) {
					t.Errorf("Parse(%q) = %q, but %q with a vendor scheme without a row", in, got, want)
				}
			}
		}
	}
}
