package arcp

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"testing"
)

func TestNewSHA1(t *testing.T) {
	tests := []struct {
		name string
		ns   UUID
		in   string
		want string
	}{
		// RFC 9562 appendix A.4.
		{"RFC 9562 A.4", NamespaceDNS, "www.example.com", "2ed6657d-e927-568b-95e1-2665a8aea6a2"},
		// The URL namespace, as the draft's section 4.1 asks; the values
		// are those of Python's uuid.uuid5(uuid.NAMESPACE_URL, in), the
		// call the draft's appendix A.2 shows.
		{"URL data.zip", NamespaceURL, "http://example.com/data.zip", "b7749d0b-0e47-5fc4-999d-f154abe68065"},
		{"URL pipeline", NamespaceURL, "file:/d/a.zip", "f6ccffca-fecb-59df-bd83-043af5c50477"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NewSHA1(tc.ns, []byte(tc.in))
			if got.String() != tc.want {
				t.Errorf("NewSHA1(%v, %q) = %v, want %v", tc.ns, tc.in, got, tc.want)
			}
			if got.Version() != 5 {
				t.Errorf("version %d, want 5", got.Version())
			}
			if got[8]>>6 != 0b10 {
				t.Errorf("variant bits %02b, want 10", got[8]>>6)
			}
		})
	}
	// The namespaces as RFC 9562 section 6.6 and the draft write them.
	if s := NamespaceURL.String(); s != "6ba7b811-9dad-11d1-80b4-00c04fd430c8" {
		t.Errorf("NamespaceURL = %s", s)
	}
	if s := NamespaceDNS.String(); s != "6ba7b810-9dad-11d1-80b4-00c04fd430c8" {
		t.Errorf("NamespaceDNS = %s", s)
	}
}

func TestParseUUID(t *testing.T) {
	for _, s := range []string{"2a47c495-ac70-4ed1-850b-8800a57618cf", "2A47C495-AC70-4ED1-850B-8800A57618CF"} {
		u, err := ParseUUID(s)
		if err != nil {
			t.Fatalf("ParseUUID(%q): %v", s, err)
		}
		if u.String() != "2a47c495-ac70-4ed1-850b-8800a57618cf" {
			t.Errorf("ParseUUID(%q) = %v", s, u)
		}
		if u.Version() != 4 {
			t.Errorf("ParseUUID(%q).Version() = %d, want 4", s, u.Version())
		}
	}
	for _, s := range []string{"", "2a47c495ac704ed1850b8800a57618cf", "2a47c495-ac70-4ed1-850b-8800a57618cg", "2a47c495-ac70-4ed1-850b8-800a57618cf", "{2a47c495-ac70-4ed1-850b-8800a57618cf}"} {
		if _, err := ParseUUID(s); err == nil {
			t.Errorf("ParseUUID(%q) succeeded", s)
		}
	}
}

// draftURIs are the example URIs of draft-soilandreyes-arcp-03 that its
// text (specs/arcp.txt) keeps, with the kind of their authority.
var draftURIs = []struct {
	uri  string
	kind Kind
	name string // URI.Name
}{
	{"arcp://uuid,2a47c495-ac70-4ed1-850b-8800a57618cf", KindUUID, "."},
	{"arcp://ni,sha-256;JCS7yveugE3UaZiHCs1XpRVfSHaewxAKka0o5q2osg8", KindNI, "."},
	{"arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/css/base.css", KindUUID, "css/base.css"},
	{"arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/fonts/Foo.woff", KindUUID, "fonts/Foo.woff"},
	{"arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/outside.txt", KindUUID, "outside.txt"},
	{"arcp://uuid,12f89f9c-e6ca-4032-ae73-46b68c2b415a/", KindUUID, "."},
}

func TestDraftExamples(t *testing.T) {
	for _, tc := range draftURIs {
		u, err := Parse(tc.uri)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.uri, err)
		}
		if got := u.String(); got != tc.uri {
			t.Errorf("Parse(%q).String() = %q", tc.uri, got)
		}
		if u.Kind() != tc.kind {
			t.Errorf("Parse(%q).Kind() = %v, want %v", tc.uri, u.Kind(), tc.kind)
		}
		if name, err := u.Name(); err != nil || name != tc.name {
			t.Errorf("Parse(%q).Name() = %q, %v, want %q", tc.uri, name, err, tc.name)
		}
	}
	// Section 3.1: the ni example is a whole SHA-256 digest.
	u, _ := Parse(draftURIs[1].uri)
	if d, err := base64.RawURLEncoding.DecodeString(u.Authority[len("ni,sha-256;"):]); err != nil || len(d) != 32 {
		t.Errorf("ni example: %d bytes, %v; want a 32-byte digest", len(d), err)
	} else if a := NIAuthority("sha-256", d); a != u.Authority {
		t.Errorf("NIAuthority of its digest = %q, want %q", a, u.Authority)
	}
	// Appendices A.1 and A.5: the v4 UUIDs of the examples.
	for _, s := range []string{"32a423d6-52ab-47e3-a9cd-54f418a48571", "12f89f9c-e6ca-4032-ae73-46b68c2b415a", "ff2d5a82-7142-4d3f-b8cc-3e662d6de756"} {
		if id, err := ParseUUID(s); err != nil || id.Version() != 4 {
			t.Errorf("ParseUUID(%q) = version %d, %v; want a v4 UUID", s, id.Version(), err)
		}
	}
}

func TestDraftResolution(t *testing.T) {
	tests := []struct{ base, ref, want string }{
		// A.1: a malicious hyperlink stays in the archive.
		{"arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/", "../../../outside.txt", "arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/outside.txt"},
		{"arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/css/base.css", "../../../outside.txt", "arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/outside.txt"},
		{"arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/css/base.css", "../fonts/Foo.woff", "arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/fonts/Foo.woff"},
		// A.5: the LDP container's relative URIs.
		{"arcp://uuid,12f89f9c-e6ca-4032-ae73-46b68c2b415a/", "contact1", "arcp://uuid,12f89f9c-e6ca-4032-ae73-46b68c2b415a/contact1"},
		{"arcp://uuid,12f89f9c-e6ca-4032-ae73-46b68c2b415a/", "contact2", "arcp://uuid,12f89f9c-e6ca-4032-ae73-46b68c2b415a/contact2"},
		{"arcp://uuid,12f89f9c-e6ca-4032-ae73-46b68c2b415a/", "", "arcp://uuid,12f89f9c-e6ca-4032-ae73-46b68c2b415a/"},
	}
	for _, tc := range tests {
		checkResolve(t, tc.base, tc.ref, tc.want)
	}
}

func checkResolve(t *testing.T, base, ref, want string) {
	t.Helper()
	b, err := Parse(base)
	if err != nil {
		t.Fatalf("Parse(%q): %v", base, err)
	}
	got, err := b.Resolve(ref)
	if err != nil {
		t.Errorf("Parse(%q).Resolve(%q): %v", base, ref, err)
		return
	}
	if got.String() != want {
		t.Errorf("Parse(%q).Resolve(%q) = %q, want %q", base, ref, got, want)
	}
	if _, err := Parse(got.String()); err != nil {
		t.Errorf("Resolve(%q) gave %q, which does not parse: %v", ref, got, err)
	}
}

// TestRFC3986Examples resolves the reference examples of RFC 3986
// section 5.4 against its base, with the scheme arcp.
func TestRFC3986Examples(t *testing.T) {
	const base = "arcp://a/b/c/d;p?q"
	tests := []struct{ ref, want string }{
		{"g", "arcp://a/b/c/g"},
		{"./g", "arcp://a/b/c/g"},
		{"g/", "arcp://a/b/c/g/"},
		{"/g", "arcp://a/g"},
		{"//g", "arcp://g"},
		{"?y", "arcp://a/b/c/d;p?y"},
		{"g?y", "arcp://a/b/c/g?y"},
		{"#s", "arcp://a/b/c/d;p?q#s"},
		{"g#s", "arcp://a/b/c/g#s"},
		{"g?y#s", "arcp://a/b/c/g?y#s"},
		{";x", "arcp://a/b/c/;x"},
		{"g;x", "arcp://a/b/c/g;x"},
		{"g;x?y#s", "arcp://a/b/c/g;x?y#s"},
		{"", "arcp://a/b/c/d;p?q"},
		{".", "arcp://a/b/c/"},
		{"./", "arcp://a/b/c/"},
		{"..", "arcp://a/b/"},
		{"../", "arcp://a/b/"},
		{"../g", "arcp://a/b/g"},
		{"../..", "arcp://a/"},
		{"../../", "arcp://a/"},
		{"../../g", "arcp://a/g"},
		// Abnormal examples (section 5.4.2).
		{"../../../g", "arcp://a/g"},
		{"../../../../g", "arcp://a/g"},
		{"/./g", "arcp://a/g"},
		{"/../g", "arcp://a/g"},
		{"g.", "arcp://a/b/c/g."},
		{".g", "arcp://a/b/c/.g"},
		{"g..", "arcp://a/b/c/g.."},
		{"..g", "arcp://a/b/c/..g"},
		{"./../g", "arcp://a/b/g"},
		{"./g/.", "arcp://a/b/c/g/"},
		{"g/./h", "arcp://a/b/c/g/h"},
		{"g/../h", "arcp://a/b/c/h"},
		{"g;x=1/./y", "arcp://a/b/c/g;x=1/y"},
		{"g;x=1/../y", "arcp://a/b/c/y"},
		{"g?y/./x", "arcp://a/b/c/g?y/./x"},
		{"g?y/../x", "arcp://a/b/c/g?y/../x"},
		{"g#s/./x", "arcp://a/b/c/g#s/./x"},
		{"g#s/../x", "arcp://a/b/c/g#s/../x"},
		// An absolute arcp reference: its dot segments are removed.
		{"arcp://name,x/a/../b", "arcp://name,x/b"},
	}
	for _, tc := range tests {
		checkResolve(t, base, tc.ref, tc.want)
	}
	b, _ := Parse(base)
	for _, ref := range []string{"g:h", "http:g", "http://x/y", "a b", "%zz", "a:b"} {
		if got, err := b.Resolve(ref); !errors.Is(err, ErrSyntax) || !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Resolve(%q) = %v, %v; want an ErrSyntax error", ref, got, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{
		"",
		"arcp:",
		"arcp:/x",
		"http://uuid,2a47c495-ac70-4ed1-850b-8800a57618cf/",
		"arcp:///x",                  // empty authority
		"arcp://uuid,2a47c495/x",     // a short UUID
		"arcp://uuid,/x",             //
		"arcp://ni,sha-256/x",        // no ";"
		"arcp://ni,;abc/x",           // no algorithm
		"arcp://ni,sha-256;a+b/x",    // "+" is not base64url
		"arcp://name,/x",             // empty name
		"arcp://name,a:b/x",          // ":" in a reg-name
		"arcp://name,a b/x",          // a space
		"arcp://a@b@c/x",             // two "@"
		"arcp://host:80x/",           // bad port
		"arcp://[::1/",               // unclosed IP literal
		"arcp://name,a.zip/a b",      // a space in the path
		"arcp://name,a.zip/%2",       // a short escape
		"arcp://name,a.zip/%zz",      // a bad escape
		"arcp://name,a.zip/x?a b",    // a space in the query
		"arcp://name,a.zip/x#a#b",    // "#" in the fragment
		"arcp://name,a.zip/\u00e9",   // an IRI
		"arcp://name,a.zip/x\x00",    // a control character
		"arcp://name,a.zip/x\\y",     // a backslash
		"arcp://name,a.zip/<script>", //
		"arcp://uuid,2a47c495-ac70-4ed1-850b-8800a57618cf\x7f/", // DEL
	} {
		u, err := Parse(s)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", s, u)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Parse(%q): %v is not a *SyntaxError matching ErrSyntax and fs.ErrInvalid", s, err)
		}
	}
}

func TestParseForms(t *testing.T) {
	tests := []struct {
		in   string
		out  string // String, "" for in
		kind Kind
	}{
		{in: "ARCP://UUID,2A47C495-AC70-4ED1-850B-8800A57618CF/x", out: "arcp://UUID,2A47C495-AC70-4ED1-850B-8800A57618CF/x", kind: KindUUID},
		{in: "arcp://name,app.example.com/img/logo.png", kind: KindName},
		{in: "arcp://name,a%20b.zip/x%20y?q=1&r#frag", kind: KindName},
		{in: "arcp://example.com:8080/x", kind: KindOther},
		{in: "arcp://user@[::1]:8/x", kind: KindOther},
		{in: "arcp://a//b", kind: KindOther},
		{in: "arcp://ni,sha-256-32;f4OxZQ", kind: KindNI},
		{in: "arcp://name,a.zip?", kind: KindName},
		{in: "arcp://name,a.zip#", kind: KindName},
	}
	for _, tc := range tests {
		u, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		want := tc.out
		if want == "" {
			want = tc.in
		}
		if u.String() != want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, u, want)
		}
		if u.Kind() != tc.kind {
			t.Errorf("Parse(%q).Kind() = %v, want %v", tc.in, u.Kind(), tc.kind)
		}
	}
}

func TestName(t *testing.T) {
	tests := []struct{ path, want string }{
		{"", "."},
		{"/", "."},
		{"/a", "a"},
		{"/a/", "a"},
		{"/a/b%20c", "a/b c"},
		{"/a%2Fb", "a/b"},
		{"/../../x", "x"},
		{"/a/./b/../c", "a/c"},
		{"/%C3%A9", "\u00e9"},
	}
	for _, tc := range tests {
		u := &URI{Authority: "name,x", Path: tc.path}
		if got, err := u.Name(); err != nil || got != tc.want {
			t.Errorf("URI{Path: %q}.Name() = %q, %v, want %q", tc.path, got, err, tc.want)
		}
	}
	for _, p := range []string{"/a//b", "/%2E%2E/x", "/a/%2e%2e", "//x", "/a%2F%2Fb", "/a%zz", "/a%2"} {
		u := &URI{Authority: "name,x", Path: p}
		if got, err := u.Name(); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("URI{Path: %q}.Name() = %q, %v, want an fs.ErrInvalid error", p, got, err)
		}
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		authority, name string
		dir             bool
		want            string
	}{
		{"name,a.zip", ".", true, "arcp://name,a.zip/"},
		{"name,a.zip", "dir", true, "arcp://name,a.zip/dir/"},
		{"name,a.zip", "a b/c#d?e%f", false, "arcp://name,a.zip/a%20b/c%23d%3Fe%25f"},
		{"name,a.zip", "x:y@z;w=1", false, "arcp://name,a.zip/x:y@z;w=1"},
		{"name,a.zip", "\u00e9\n", false, "arcp://name,a.zip/%C3%A9%0A"},
	}
	for _, tc := range tests {
		u, err := New(tc.authority, tc.name, tc.dir)
		if err != nil {
			t.Errorf("New(%q, %q): %v", tc.authority, tc.name, err)
			continue
		}
		if u.String() != tc.want {
			t.Errorf("New(%q, %q) = %q, want %q", tc.authority, tc.name, u, tc.want)
		}
		if name, err := u.Name(); err != nil || name != tc.name {
			t.Errorf("New(%q, %q).Name() = %q, %v", tc.authority, tc.name, name, err)
		}
	}
	for _, bad := range [][2]string{{"", "x"}, {"name,a.zip", "../x"}, {"name,a.zip", "/x"}, {"uuid,x", "x"}} {
		if u, err := New(bad[0], bad[1], false); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("New(%q, %q) = %v, %v; want an fs.ErrInvalid error", bad[0], bad[1], u, err)
		}
	}
}

func TestAuthorities(t *testing.T) {
	tests := []struct{ name, want string }{
		{"a.zip", "name,a.zip"},
		{"A b:c@d/é.zip", "name,A%20b%3Ac%40d%2F%C3%A9.zip"},
		{"x!$&'()*+,;=~", "name,x!$&'()*+,;=~"},
		{"", ""},
	}
	for _, tc := range tests {
		got := NameAuthority(tc.name)
		if got != tc.want {
			t.Errorf("NameAuthority(%q) = %q, want %q", tc.name, got, tc.want)
		}
		if got != "" {
			if _, err := Parse("arcp://" + got + "/"); err != nil {
				t.Errorf("NameAuthority(%q) = %q does not parse: %v", tc.name, got, err)
			}
		}
	}
	same := [][2]string{
		{"uuid,2a47c495-ac70-4ed1-850b-8800a57618cf", "UUID,2A47C495-AC70-4ED1-850B-8800A57618CF"},
		{"name,a.zip", "NAME,A.ZIP"},
		{"name,a.zip", "name,%61.zip"},
		{"name,a%2fb", "name,A%2Fb"},
		{"ni,sha-256;abc", "NI,SHA-256;abc"},
		{"User@Example.COM:80", "User@example.com:80"},
		{"a%7eb@h", "a~b@H"},
	}
	for _, p := range same {
		if AuthorityKey(p[0]) != AuthorityKey(p[1]) {
			t.Errorf("AuthorityKey(%q) = %q, AuthorityKey(%q) = %q; want equal", p[0], AuthorityKey(p[0]), p[1], AuthorityKey(p[1]))
		}
	}
	differ := [][2]string{
		{"ni,sha-256;abc", "ni,sha-256;ABC"}, // base64url is case-sensitive
		{"user@h", "USER@h"},                 // and so is userinfo
		{"name,a%2Fb", "name,a/b"},
		{"name,a.zip", "name,b.zip"},
	}
	for _, p := range differ {
		if AuthorityKey(p[0]) == AuthorityKey(p[1]) {
			t.Errorf("AuthorityKey(%q) = AuthorityKey(%q) = %q; want them to differ", p[0], p[1], AuthorityKey(p[0]))
		}
	}
}
