package vfs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

type resolveTest struct {
	base, ref string
	want      string // resolved canonical pipeline
	err       string // non-empty: Resolve must fail, with this text in the message
}

var resolveTests = []resolveTest{
	// SPEC section 5.
	{base: "https://h/a/b?t=1", ref: "c", want: "https://h/a/c"},
	{base: "https://h/a/b?t=1", ref: "", want: "https://h/a/b?t=1"},
	{base: "https://h/a/b?t=1", ref: "|zip:", want: "https://h/a/b?t=1|zip:"},
	{base: "https://h/a/b?t=1", ref: "?u=2", want: "https://h/a/b?u=2"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "..:other/h|zarr3:a", want: "gs://bkt/p/other/h/|zarr3:a"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "..:", want: "gs://bkt/p/outer.zip"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "..", want: "gs://bkt/p/outer.zip|zip:"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "../x", want: "gs://bkt/p/outer.zip|zip:x"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "inner2.zip|zip:a", want: "gs://bkt/p/outer.zip|zip:p/inner2.zip|zip:a"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "s3://bucket/x", want: "s3://bucket/x"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "S3://bucket/x|ZIP", want: "s3://bucket/x|zip:"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "S3://bucket/x.zip|ZIP", want: "s3://bucket/x.zip|zip:"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "acme.thing:x", want: "acme.thing:x"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "./a:b", want: "gs://bkt/p/outer.zip|zip:p/a:b"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "a:b", err: "unknown scheme"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "zip:b", err: "cannot be the root"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "1a:b", err: `the first path segment holds ":"; write ./1a:b`},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "a/b:c", want: "gs://bkt/p/outer.zip|zip:p/a/b:c"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "..:|..:", err: "has no adapter"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip", ref: "..:x|..:y", err: "has no adapter"},
	{base: "gs://bkt/p/outer.zip|zip:p/inner.zip|zip:q", ref: "..:x|..:y", want: "gs://bkt/p/y"},
	{base: "gs://bkt/p/x.zip", ref: "..:y", err: "has no adapter"},
	{base: "gs://bkt/p/", ref: "../../../..", want: "gs://bkt/"},
	{base: "gs://bkt/p/x", ref: "|zarr3:", want: "gs://bkt/p/x/|zarr3:"},
	{base: "gs://bkt/p/x", ref: "y|zarr3:", want: "gs://bkt/p/y/|zarr3:"},
	{base: "gs://bkt/p/x", ref: "y|zarr3:|zip:", err: "zip needs a file"},
	{base: "gs://bkt/p/x", ref: "a b", err: "percent-encoded"},
	{base: "gs://bkt/p/x", ref: "a#b", err: "fragments"},
	{base: "gs://bkt/p/x", ref: "a||zip:", err: "empty sub-URL"},
	{base: "gs://bkt/p/x", ref: "a|", err: "empty sub-URL"},
	{base: "gs://bkt/p/x", ref: "?q", err: "gs takes no query"},
	{base: "gs://bkt/p/x", ref: "%7C", want: "gs://bkt/p/%7C"},
	{base: "file:/d/a.zip|zip:x", ref: "../../y", want: "file:/d/a.zip|zip:y"},
	{base: "file:/d/a.zip|zip:x", ref: "/y", want: "file:/d/a.zip|zip:/y"},
	{base: "file:/d/a.zip|zip:", ref: "y", want: "file:/d/a.zip|zip:y"},
	{base: "file:/d/a.zip|zip:", ref: "//y", err: "zip takes no authority"},
	{base: "file:/d/a.zip|zip:x", ref: "a/..//y", want: "file:/d/a.zip|zip:/y"},
	{base: "file:/d/", ref: "a/..//y", want: "file:/d//y"},
	{base: "file:/d/x", ref: "//h/y", want: "file://h/y"},
	{base: "file:/d/x", ref: "../../..", want: "file:/"},
	{base: "file:///d/x", ref: "../../..", want: "file:///"},
	{base: "file://localhost/d/x", ref: "y", want: "file://localhost/d/y"},
	{base: "file:/d/x", ref: "/", want: "file:/"},
	{base: "memory:", ref: "x", want: "memory:x"},
	{base: "memory://", ref: "x", want: "memory://x"},
	{base: "memory://a/b", ref: "../../c", want: "memory://c"},
	{base: "memory://a/b", ref: "//c", want: "memory://c"},
	{base: "memory:/a/b", ref: "../../c", want: "memory:/c"},
	{base: "file:/d/|ocdbt://v3", ref: "k", want: "file:/d/|ocdbt://v3/k"},
	{base: "file:/d/|ocdbt://v3/a/b", ref: "../../../k", want: "file:/d/|ocdbt://v3/k"},
	{base: "file:/d/|ocdbt:a/b", ref: "../../../k", want: "file:/d/|ocdbt:k"},
	{base: "file:/d/|ocdbt:a", ref: "@k", want: "file:/d/|ocdbt:%40k"},
	{base: "file:/d/|ocdbt:a", ref: "//v2/k", want: "file:/d/|ocdbt://v2/k"},
	{base: "file:/d/|ocdbt:a", ref: "//v0/k", err: "ocdbt version"},
	{base: "file:/d/|icechunk://tag.x/a/b", ref: "c", want: "file:/d/|icechunk://tag.x/a/c"},
	{base: "file:/d/|icechunk://tag.x/a/b", ref: "//branch.y/c", want: "file:/d/|icechunk://branch.y/c"},
	{base: "file:/d/|icechunk:", ref: "@c", want: "file:/d/|icechunk:%40c"},
	{base: "s3://bucket/a/b", ref: "../../../c", want: "s3://bucket/c"},
	{base: "s3://bucket/a/b", ref: "//other-bucket/c", want: "s3://other-bucket/c"},
	{base: "s3://bucket/a/b", ref: "//ab/c", err: "must be 3 to 63"},
	{base: "s3+http://h:9000/bucket/a/b", ref: "../../../c", want: "s3+http://h:9000/c"},
	{base: "s3+http://h:9000/bucket/a/b", ref: "../c", want: "s3+http://h:9000/bucket/c"},
	{base: "file:/x.json|json:/a/b", ref: "c", want: "file:/x.json|json:/a/c"},
	{base: "file:/x.json|json:/a/b", ref: "c~2", err: "~0 or ~1"},
	{base: "file:/x|byte-range:1-2", ref: "3-4", want: "file:/x|byte-range:3-4"},
	{base: "file:/x|byte-range:1-2", ref: "4-3", err: "ends before it starts"},
	{base: "file:/x|gzip:", ref: "a", err: "gzip takes no path"},
	{base: "file:/x|gzip:", ref: "", want: "file:/x|gzip:"},
	{base: "acme.thing://[x]/a/b?q", ref: "c", want: "acme.thing://[x]/a/c"},
	{base: "acme.thing:a/b?q", ref: "", want: "acme.thing:a/b?q"},
	{base: "", ref: "c", err: "empty pipeline"},
	{base: "", ref: "file:/c", want: "file:/c"},
}

// rfc3986Tests are the examples of RFC 3986 section 5.4 with the base
// http://a/b/c/d;p?q, as ref and the expected path-and-query after
// "http://a" ("" for an error: fragments are rejected, and "g:h" and
// "http:g" are absolute pipelines that do not parse).
var rfc3986Tests = []struct{ ref, want string }{
	// 5.4.1 Normal Examples.
	{"g:h", ""},
	{"g", "/b/c/g"},
	{"./g", "/b/c/g"},
	{"g/", "/b/c/g/"},
	{"/g", "/g"},
	{"?y", "/b/c/d;p?y"},
	{"g?y", "/b/c/g?y"},
	{"#s", ""},
	{"g#s", ""},
	{"g?y#s", ""},
	{";x", "/b/c/;x"},
	{"g;x", "/b/c/g;x"},
	{"g;x?y#s", ""},
	{"", "/b/c/d;p?q"},
	{".", "/b/c/"},
	{"./", "/b/c/"},
	{"..", "/b/"},
	{"../", "/b/"},
	{"../g", "/b/g"},
	{"../..", "/"},
	{"../../", "/"},
	{"../../g", "/g"},
	// 5.4.2 Abnormal Examples.
	{"../../../g", "/g"},
	{"../../../../g", "/g"},
	{"/./g", "/g"},
	{"/../g", "/g"},
	{"g.", "/b/c/g."},
	{".g", "/b/c/.g"},
	{"g..", "/b/c/g.."},
	{"..g", "/b/c/..g"},
	{"./../g", "/b/g"},
	{"./g/.", "/b/c/g/"},
	{"g/./h", "/b/c/g/h"},
	{"g/../h", "/b/c/h"},
	{"g;x=1/./y", "/b/c/g;x=1/y"},
	{"g;x=1/../y", "/b/c/y"},
	{"g?y/./x", "/b/c/g?y/./x"},
	{"g?y/../x", "/b/c/g?y/../x"},
	{"g#s/./x", ""},
	{"g#s/../x", ""},
	{"http:g", ""},
}

// rfc3986Bases adapts the base of RFC 3986 section 5.4 to other schemes:
// base is the pipeline whose innermost path is /b/c/d;p (or b/c/d;p for a
// relative path), and prefix is what comes before the resolved path.
var rfc3986Bases = []struct {
	name, base, prefix string
	relative           bool // the innermost path has no leading "/"
	query              bool // the innermost scheme takes a query
}{
	{name: "https", base: "https://a/b/c/d;p?q", prefix: "https://a", query: true},
	{name: "gs", base: "gs://bkt/b/c/d;p", prefix: "gs://bkt"},
	{name: "s3", base: "s3://bucket/b/c/d;p", prefix: "s3://bucket"},
	{name: "s3+http", base: "s3+http://a:9000/b/c/d;p", prefix: "s3+http://a:9000"},
	{name: "file", base: "file:/b/c/d;p", prefix: "file:"},
	{name: "ocdbt", base: "memory://db/|ocdbt://v7/b/c/d;p", prefix: "memory://db/|ocdbt://v7"},
	{name: "icechunk", base: "memory://db/|icechunk://tag.x/b/c/d;p", prefix: "memory://db/|icechunk://tag.x"},
	{name: "zip-in-zip", base: "file:/o.zip|zip:i.zip|zip:b/c/d;p", prefix: "file:/o.zip|zip:i.zip|zip:", relative: true},
	{name: "memory", base: "memory://b/c/d;p", prefix: "memory://", relative: true},
	{name: "vendor", base: "acme.thing:b/c/d;p?q", prefix: "acme.thing:", relative: true, query: true},
}

func TestResolveRFC3986(t *testing.T) {
	for _, b := range rfc3986Bases {
		base := MustParse(b.base)
		for _, tc := range rfc3986Tests {
			want := tc.want
			switch {
			case want == "":
			case strings.Contains(tc.ref, "?") && !b.query:
				want = ""
			case tc.ref == "":
				want = b.base
			default:
				if !b.query {
					want = strings.TrimSuffix(want, "?q")
				}
				if b.relative && !strings.HasPrefix(tc.ref, "/") {
					want = strings.TrimPrefix(want, "/")
				}
				want = b.prefix + want
			}
			t.Run(b.name+"/"+tc.ref, func(t *testing.T) {
				got, err := base.Resolve(tc.ref)
				if want == "" {
					if err == nil {
						t.Fatalf("%q.Resolve(%q) = %q, want error", b.base, tc.ref, got)
					}
					return
				}
				if err != nil {
					t.Fatalf("%q.Resolve(%q) error: %v", b.base, tc.ref, err)
				}
				if got.String() != want {
					t.Fatalf("%q.Resolve(%q) = %q, want %q", b.base, tc.ref, got, want)
				}
			})
		}
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range resolveTests {
		t.Run(tc.base+"+"+tc.ref, func(t *testing.T) {
			var base Pipeline
			if tc.base != "" {
				base = MustParse(tc.base)
			}
			before := base.String()
			got, err := base.Resolve(tc.ref)
			if base.String() != before {
				t.Errorf("Resolve changed its base: %q, was %q", base, before)
			}
			if tc.err != "" {
				if err == nil {
					t.Fatalf("%q.Resolve(%q) = %q, want error containing %q", tc.base, tc.ref, got, tc.err)
				}
				var se *SyntaxError
				if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
					t.Errorf("%q.Resolve(%q) error %T is not a *SyntaxError", tc.base, tc.ref, err)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%q.Resolve(%q) error %q, want it to contain %q", tc.base, tc.ref, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%q.Resolve(%q) error: %v", tc.base, tc.ref, err)
			}
			if got.String() != tc.want {
				t.Fatalf("%q.Resolve(%q) = %q, want %q", tc.base, tc.ref, got, tc.want)
			}
			again, err := Parse(got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Errorf("Parse(%q) = %#v, %v; want %#v", got, again, err, got)
			}
		})
	}
}
