package vfs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// withSchemeRows makes the scheme table the standard rows followed by rows
// until the test ends. Tests that call it must not run in parallel.
func withSchemeRows(t *testing.T, rows ...schemeInfo) {
	t.Helper()
	old := schemes
	schemes = newSchemeTable(append(slices.Clone(schemeRows), rows...))
	t.Cleanup(func() { schemes = old })
}

// TestSchemeRows checks that the rows of the scheme table agree with SPEC
// sections 1-3, with each other and with the module's packages.
func TestSchemeRows(t *testing.T) {
	if len(schemes.byName) != len(schemeRows) {
		t.Fatalf("the table indexes %d of its %d rows", len(schemes.byName), len(schemeRows))
	}
	for _, r := range schemeRows {
		if r.name != strings.ToLower(r.name) || !isScheme(r.name) {
			t.Errorf("%q: the name is not a lower-case scheme", r.name)
		}
		if r.summary == "" || strings.ContainsAny(r.summary, "\r\n") || strings.HasSuffix(r.summary, ".") {
			t.Errorf("%s: summary %q is not one line without a final period", r.name, r.summary)
		}
		a := r.authority
		if a.form == authNone && (a.required || a.check != nil) {
			t.Errorf("%s: an authority that is not allowed is required or checked", r.name)
		}
		if r.query && r.authority.form != authHost && r.role != roleVendor {
			t.Errorf("%s: a query on a scheme other than http, https and vendor schemes (SPEC section 1)", r.name)
		}

		switch r.role {
		case roleRoot:
			if IsVendorScheme(r.name) || r.base != KindUnknown || r.dirReader || r.yields != KindAny {
				t.Errorf("%s: a root is no vendor scheme, has no base and yields a kind by its path", r.name)
			}
		case roleAdapter:
			if IsVendorScheme(r.name) || r.base != KindFile && r.base != KindDirectory || r.yields == KindUnknown {
				t.Errorf("%s: an adapter is no vendor scheme, needs a file or a directory and yields a known kind", r.name)
			}
		case roleVendor:
			if !strings.HasPrefix(r.name, "pipefs.") {
				t.Errorf("%s: a vendor row is one of the project's own schemes (pipefs.*)", r.name)
			}
			// The syntax of every vendor scheme, as if it had no row.
			v := vendorInfo
			if r.authority.form != v.authority.form || r.authority.required || r.authority.check != nil ||
				r.path != v.path || r.query != v.query {
				t.Errorf("%s: a vendor row has the syntax of vendorInfo", r.name)
			}
		default:
			t.Errorf("%s: role %d", r.name, r.role)
		}
		if r.dirReader != (r.base == KindDirectory) {
			t.Errorf("%s: dirReader is %v for a base of %v", r.name, r.dirReader, r.base)
		}

		if r.pkg == "" {
			continue
		}
		dir := "/adapters/"
		if r.role == roleRoot {
			dir = "/roots/"
		}
		rel, ok := strings.CutPrefix(r.pkg, module+dir)
		if !ok || rel == "" || strings.Contains(rel, "/") {
			t.Errorf("%s: package %q is not in %s", r.name, r.pkg, module+dir)
			continue
		}
		if fi, err := os.Stat(filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(r.pkg, module+"/")))); err != nil || !fi.IsDir() {
			t.Errorf("%s: package %q is not in this module: %v", r.name, r.pkg, err)
		}
	}
}

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
		"pipefs.pages":             m + "adapters/imageadapter",
		"hdf5":                     m + "adapters/hdf5adapter",
		"avif":                     m + "adapters/imageadapter",
		"bmp":                      m + "adapters/imageadapter",
		"jpeg":                     m + "adapters/imageadapter",
		"png":                      m + "adapters/imageadapter",
		"tiff":                     m + "adapters/imageadapter",
		"webp":                     m + "adapters/imageadapter",
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

// TestSchemeOneRow adds schemes to the table, one row each, and checks
// that parsing, resolving, joining, the kind checks and the accessors all
// follow the rows.
func TestSchemeOneRow(t *testing.T) {
	withSchemeRows(t,
		schemeInfo{name: "ftp", role: roleRoot, authority: hostAuthority, yields: KindAny,
			summary: "file on an FTP server"},
		schemeInfo{name: "lz4", role: roleAdapter, path: pathNone, base: KindFile, yields: KindFile,
			pkg: module + "/adapters/lz4adapter", summary: "lz4 frames"},
		schemeInfo{name: "hg", role: roleAdapter, base: KindDirectory, yields: KindAny, dirReader: true,
			authority: authorityRule{form: authVersion, check: func(scheme, v string) string {
				if v != "tip" && strings.TrimLeft(v, "0123456789abcdef") != "" {
					return fmt.Sprintf("%s revision %q is neither tip nor hexadecimal", scheme, v)
				}
				return ""
			}},
			summary: "Mercurial repository at a revision"},
	)

	for _, tc := range []struct{ in, want, err string }{
		{in: "FTP://h:21/d/a.lz4|LZ4", want: "ftp://h:21/d/a.lz4|lz4:"},
		{in: "ftp://h/a.lz4|lz4:|zip:x", want: "ftp://h/a.lz4|lz4:|zip:x"},
		{in: "ftp://h/r|hg:", want: "ftp://h/r/|hg:"},
		{in: "ftp://h/r/|hg://tip/x|json:/a", want: "ftp://h/r/|hg://tip/x|json:/a"},
		{in: "ftp://h/r/|hg:@c0ffee/x", want: "ftp://h/r/|hg://c0ffee/x"},
		{in: "ftp://h/r/|hg:%40x", want: "ftp://h/r/|hg:%40x"},
		{in: "ftp://h/r/|hg://v2/x", err: `hg revision "v2" is neither tip nor hexadecimal`},
		{in: "ftp://h/r/|hg:x?q", err: "hg takes no query"},
		{in: "ftp:/x", err: `ftp needs "//" and a host`},
		{in: "ftp://u@h/x", err: "ftp takes no userinfo"},
		{in: "ftp://h/x?q", err: "ftp takes no query"},
		{in: "file:/a|ftp://h/", err: "ftp is a root scheme"},
		{in: "lz4:", err: "lz4 is an adapter and cannot be the root; the root is one of file, memory, http, https, s3, s3+http, s3+https, gs, ftp or a vendor scheme"},
		{in: "file:/a|lz4:x", err: "lz4 takes no path; write lz4:"},
		{in: "file:/a|lz4://x", err: "lz4 takes no authority"},
		{in: "file:/d/|lz4:", err: "lz4 needs a file as its base"},
		{in: "file:/a|lz4:|hg:", err: "hg needs a directory as its base"},
	} {
		p, err := Parse(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %q, %v; want an error with %q", tc.in, p, err, tc.err)
			}
		case err != nil:
			t.Errorf("Parse(%q): %v", tc.in, err)
		case p.String() != tc.want:
			t.Errorf("Parse(%q) = %q, want %q", tc.in, p, tc.want)
		default:
			checkCanonical(t, "Parse", p)
		}
	}

	p := MustParse("ftp://h:21/r/|hg://tip")
	if got := p[0].Host() + " " + p[0].Port() + " " + p[1].Version(); got != "h 21 tip" {
		t.Errorf("Host, Port, Version = %q, want %q", got, "h 21 tip")
	}
	if got := p[1].Join("@x").String(); got != "hg://tip/@x" {
		t.Errorf("Join = %q", got)
	}
	if got := MustParse("ftp://h/r/|hg:").Append()[1].Join("@x").String(); got != "hg:%40x" {
		t.Errorf("Join = %q", got)
	}
	if got := p[0].Join("a b").String(); got != "ftp://h:21/r/a%20b" {
		t.Errorf("Join = %q", got)
	}
	for _, tc := range []struct{ ref, want string }{
		{"x/../y", "ftp://h:21/r/|hg://tip/y"},
		{"//c0ffee/k", "ftp://h:21/r/|hg://c0ffee/k"},
		{"@k", "ftp://h:21/r/|hg://tip/@k"},
		{"..:../a.lz4|lz4:", "ftp://h:21/a.lz4|lz4:"},
	} {
		r, err := p.Resolve(tc.ref)
		if err != nil || r.String() != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.ref, r, err, tc.want)
		}
	}
	if r, err := MustParse("ftp://h/r/|hg:").Resolve("@k"); err != nil || r.String() != "ftp://h/r/|hg:%40k" {
		t.Errorf("Resolve(@k) = %q, %v", r, err)
	}

	if !IsRootScheme("FTP") || !IsAdapterScheme("lz4") || !IsAdapterScheme("hg") {
		t.Error("IsRootScheme or IsAdapterScheme does not follow the table")
	}
	if base, yields, ok := SchemeKinds("lz4"); base != KindFile || yields != KindFile || !ok {
		t.Errorf("SchemeKinds(lz4) = %v, %v, %v", base, yields, ok)
	}
	if SchemePackage("lz4") != module+"/adapters/lz4adapter" || SchemePackage("ftp") != "" || SchemeSummary("hg") == "" {
		t.Error("SchemePackage or SchemeSummary does not follow the table")
	}
	if all := StandardSchemes(); !slices.Contains(all, "ftp") || !slices.IsSorted(all) {
		t.Errorf("StandardSchemes() = %q", all)
	}
	if u, err := ParseAdapter("LZ4"); err != nil || u.String() != "lz4:" {
		t.Errorf("ParseAdapter(LZ4) = %q, %v", u, err)
	}
}

func TestSchemeTableDuplicate(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("newSchemeTable accepts two rows for zip")
		}
	}()
	newSchemeTable(append(slices.Clone(schemeRows), schemeInfo{name: "zip"}))
}
