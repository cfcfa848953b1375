package vfs

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

// last returns the innermost sub-URL of the pipeline s.
func last(s string) SubURL {
	p := MustParse(s)
	return p[len(p)-1]
}

func TestSubURLKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"s3://bucket", "."},
		{"s3://bucket/", "."},
		{"s3://bucket/x/y", "x/y"},
		{"s3://bucket/x/y/", "x/y"},
		{"gs://bucket/a%20b", "a b"},
		{"s3+http://h/bucket/x", "bucket/x"},
		{"memory:", "."},
		{"memory:/", "."},
		{"memory://", "."},
		{"memory:a/b", "a/b"},
		{"memory:/a/b", "a/b"},
		{"memory://a/b", "a/b"},
		{"file:/d/x", "d/x"},
		{"file:///d/x", "d/x"},
		{"file://localhost/d/x", "d/x"},
		{"file:/", "."},
		{"file:/x.zip|zip:", "."},
		{"file:/x.zip|zip:p", "p"},
		{"file:/x.zip|zip:/p", "p"},
		{"file:/x.zip|zip:a%2Fb", "a/b"},
		{"file:/x.zip|zip:a//b", "a//b"},
		{"file:/x.zip|zip:a/./b", "a/./b"},
		{"file:/d/|ocdbt://v1/k/l", "k/l"},
		{"file:/d/|ocdbt://v1", "."},
		{"file:/d/|ocdbt:k", "k"},
		{"file:/d/|icechunk://tag.x/zarr.json", "zarr.json"},
		{"https://h/a/b?q=1", "a/b"},
	} {
		if got := last(tc.in).Key(); got != tc.want {
			t.Errorf("Key(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSubURLJoin(t *testing.T) {
	for _, tc := range []struct{ in, name, want string }{
		{"s3://bucket", "x", "s3://bucket/x"},
		{"s3://bucket/", "x", "s3://bucket/x"},
		{"s3://bucket/d", "x/y", "s3://bucket/d/x/y"},
		{"file:/x.zip|zip:", "x/y", "file:/x.zip|zip:x/y"},
		{"file:/x.zip|zip:", "a:b", "file:/x.zip|zip:a:b"},
		{"file:/x.zip|zip:", ".", "file:/x.zip|zip:"},
		{"file:/d/", "x", "file:/d/x"},
		{"file:/d", "x", "file:/d/x"},
		{"file:/", "x", "file:/x"},
		{"file:///", "x", "file:///x"},
		{"memory://", "x", "memory://x"},
		{"memory:", "x", "memory:x"},
		{"memory:/", "x", "memory:/x"},
		{"file:/d/|ocdbt://v3", "k", "file:/d/|ocdbt://v3/k"},
		{"file:/d/|ocdbt:", "@k", "file:/d/|ocdbt:%40k"},
		{"file:/d/|ocdbt:a", "@k", "file:/d/|ocdbt:a/@k"},
		{"file:/d/|icechunk:", "@k", "file:/d/|icechunk:%40k"},
		{"https://h?t=1", "a b", "https://h/a%20b?t=1"},
		{"https://h/d/?t=1", "x", "https://h/d/x?t=1"},
		{"gs://bucket", "%|#?", "gs://bucket/%25%7C%23%3F"},
		{"gs://bucket", "caf\u00e9", "gs://bucket/caf%C3%A9"},
		{"gs://bucket", `"<>\^` + "`{}[] ", "gs://bucket/%22%3C%3E%5C%5E%60%7B%7D%5B%5D%20"},
		{"gs://bucket", "-._~!$&'()*+,;=:@", "gs://bucket/-._~!$&'()*+,;=:@"},
		{"file:/x.json|json:", "a~b", "file:/x.json|json:/a~0b"},
		{"acme.thing:", "x", "acme.thing:x"},
		{"acme.thing://h", "x", "acme.thing://h/x"},
	} {
		u := last(tc.in)
		p := MustParse(tc.in)
		p[len(p)-1] = u.Join(tc.name)
		if got := p.String(); got != tc.want {
			t.Errorf("%q.Join(%q) = %q, want %q", tc.in, tc.name, got, tc.want)
			continue
		}
		again, err := Parse(tc.want)
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", tc.want, again, err, p)
		}
		if k := p[len(p)-1].Key(); u.Scheme != "json" && fs.ValidPath(tc.name) && k != u.Join(tc.name).Key() {
			t.Errorf("Key(%q) = %q", tc.want, k)
		}
	}
}

func TestSubURLAccessors(t *testing.T) {
	type want struct {
		host, port, bucket, version string
		start, end                  uint64
		pointer                     []string
		dir                         bool
		kind, base                  Kind
		decoded                     string
	}
	for _, tc := range []struct {
		in   string
		want want
	}{
		{"https://Example.com:8080/a%20b?x", want{host: "Example.com", port: "8080", decoded: "/a b", kind: KindAny}},
		{"https://[::1]:/a/", want{host: "::1", dir: true, decoded: "/a/", kind: KindDirectory}},
		{"https://[fe80::1%25eth0]/", want{host: "fe80::1%eth0", dir: true, decoded: "/", kind: KindDirectory}},
		{"http://ex%41mple", want{host: "exAmple", dir: true, kind: KindDirectory}},
		{"s3+https://h:9000/my%2Dbucket/x", want{host: "h", port: "9000", bucket: "my-bucket", decoded: "/my-bucket/x", kind: KindAny}},
		{"s3+https://h", want{host: "h", dir: true, kind: KindDirectory}},
		{"file://server:1/p", want{host: "server", port: "1", decoded: "/p", kind: KindAny}},
		{"file:///p", want{decoded: "/p", kind: KindAny}},
		{"s3://bucket/x", want{bucket: "bucket", decoded: "/x", kind: KindAny}},
		{"gs://bucket", want{bucket: "bucket", dir: true, kind: KindDirectory}},
		{"file:/d/|ocdbt://v5/k", want{version: "v5", decoded: "/k", kind: KindAny, base: KindDirectory}},
		{"file:/d/|ocdbt:", want{dir: true, kind: KindDirectory, base: KindDirectory}},
		{"file:/d/|icechunk://tag.it%20works!", want{version: "tag.it works!", dir: true, kind: KindDirectory, base: KindDirectory}},
		{"file:/x|byte-range:3-18446744073709551615", want{start: 3, end: 18446744073709551615, decoded: "3-18446744073709551615", kind: KindFile, base: KindFile}},
		{"file:/x|json:", want{dir: true, kind: KindDataset, base: KindFile}},
		{"file:/x|json:/", want{pointer: []string{""}, dir: true, decoded: "/", kind: KindDataset, base: KindFile}},
		{"file:/x|json:/a~1b/c~0d/%7E01/e%2Ff", want{pointer: []string{"a/b", "c~d", "~1", "e", "f"}, decoded: "/a~1b/c~0d/~01/e/f", kind: KindDataset, base: KindFile}},
		{"file:/x|gzip:", want{dir: true, kind: KindFile, base: KindFile}},
		{"file:/x/|zarr3:a", want{decoded: "a", kind: KindDataset, base: KindDirectory}},
		{"file:/x|acme.thing:a", want{decoded: "a", kind: KindUnknown, base: KindUnknown}},
		{"file:/x|pipefs.tar:", want{dir: true, kind: KindDirectory, base: KindFile}},
	} {
		u := last(tc.in)
		got := want{
			host: u.Host(), port: u.Port(), bucket: u.Bucket(), version: u.Version(),
			pointer: u.Pointer(), dir: u.IsDir(), kind: u.Kind(), base: u.BaseKind(),
			decoded: u.DecodedPath(),
		}
		got.start, got.end = u.Range()
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("accessors of %q = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestSchemeKinds(t *testing.T) {
	for _, tc := range []struct {
		scheme       string
		base, yields Kind
		ok           bool
	}{
		{"file", KindUnknown, KindAny, true},
		{"S3", KindUnknown, KindAny, true},
		{"zip", KindFile, KindAny, true},
		{"pipefs.tar", KindFile, KindAny, true},
		{"ocdbt", KindDirectory, KindAny, true},
		{"icechunk", KindDirectory, KindAny, true},
		{"byte-range", KindFile, KindFile, true},
		{"gzip", KindFile, KindFile, true},
		{"zstd", KindFile, KindFile, true},
		{"json", KindFile, KindDataset, true},
		{"webp", KindFile, KindDataset, true},
		{"zarr", KindDirectory, KindDataset, true},
		{"neuroglancer-precomputed", KindDirectory, KindDataset, true},
		{"acme.thing", KindUnknown, KindUnknown, true},
		{"tar", KindUnknown, KindUnknown, false},
		{"..", KindUnknown, KindUnknown, false},
	} {
		base, yields, ok := SchemeKinds(tc.scheme)
		if base != tc.base || yields != tc.yields || ok != tc.ok {
			t.Errorf("SchemeKinds(%q) = %v, %v, %v; want %v, %v, %v", tc.scheme, base, yields, ok, tc.base, tc.yields, tc.ok)
		}
	}
	for _, s := range []string{"file", "memory", "http", "https", "s3", "s3+http", "s3+https", "GS"} {
		if !IsRootScheme(s) || IsAdapterScheme(s) || IsVendorScheme(s) {
			t.Errorf("%q: want a root scheme only", s)
		}
	}
	for _, s := range []string{"zip", "byte-range", "gzip", "zstd", "ocdbt", "icechunk", "json", "zarr", "zarr2", "zarr3", "n5", "hdf5", "neuroglancer-precomputed", "avif", "bmp", "jpeg", "png", "tiff", "webp"} {
		if IsRootScheme(s) || !IsAdapterScheme(s) || IsVendorScheme(s) {
			t.Errorf("%q: want an adapter scheme only", s)
		}
	}
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"pipefs.tar", true}, {"a.b", true}, {"a-1.b+c.d-e", true}, {"A.B", true},
		{"a", false}, {"a+b.c", false}, {"1.a", false}, {"a.1", false}, {".a", false}, {"a.", false}, {"a.b_c", false},
	} {
		if got := IsVendorScheme(tc.s); got != tc.ok {
			t.Errorf("IsVendorScheme(%q) = %v, want %v", tc.s, got, tc.ok)
		}
	}
}

func TestAppend(t *testing.T) {
	p := MustParse("file:/a.zip|zip:")
	q := p[:1].Append(SubURL{Scheme: "gzip"})
	if p[1].Scheme != "zip" {
		t.Errorf("Append changed its receiver: %q", p)
	}
	if got, want := q.String(), "file:/a.zip|gzip:"; got != want {
		t.Errorf("Append = %q, want %q", got, want)
	}
}

func TestSyntaxErrorFields(t *testing.T) {
	for _, tc := range []struct {
		in    string
		index int
		sub   string
	}{
		{"", -1, ""},
		{"file:/x|zip://y", 1, "zip://y"},
		{"gs://bucket|zip:", 1, "zip:"},
		{"file:/a.zip|zip:|..:?q", 2, "..:?q"},
		{"file:/a.zip|zip:x|..:a|..:b", 3, "..:b"},
		{"file:/a|zip:b|..:c|zarr3:|zip:", 4, "zip:"},
		{"s3://ab", 0, "s3://ab"},
	} {
		_, err := Parse(tc.in)
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", tc.in, err)
			continue
		}
		if se.Index != tc.index || se.Sub != tc.sub || se.Input != tc.in || se.Msg == "" {
			t.Errorf("Parse(%q) error = %+v, want Index %d, Sub %q", tc.in, se, tc.index, tc.sub)
		}
	}
}

func TestParseAdapter(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "zip", want: "zip:"},
		{in: "ZIP:a/b", want: "zip:a/b"},
		{in: "zarr3:", want: "zarr3:"},
		{in: "ocdbt:@v1/p", want: "ocdbt://v1/p"},
		{in: "pipefs.tar", want: "pipefs.tar:"},
		{in: "acme.thing://[x]/p?q", want: "acme.thing://[x]/p?q"},
		{in: "file:/x", err: "root scheme"},
		{in: "..:x", err: "not an adapter on its own"},
		{in: "zip:|zarr3:", err: "single sub-URL"},
		{in: "zip://x", err: "takes no authority"},
		{in: "tar:", err: "unknown scheme"},
		{in: "", err: "empty sub-URL"},
	} {
		u, err := ParseAdapter(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseAdapter(%q) = %q, %v; want error containing %q", tc.in, u, err, tc.err)
		case tc.err == "" && (err != nil || u.String() != tc.want):
			t.Errorf("ParseAdapter(%q) = %q, %v; want %q", tc.in, u, err, tc.want)
		}
	}
}
