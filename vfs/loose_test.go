package vfs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParseLoose(t *testing.T) {
	tests := []struct{ in, want string }{
		{"file:/d/bf v2.zip|zip:a b.txt", "file:/d/bf%20v2.zip|zip:a%20b.txt"},
		{"file:/d/naïve-日本.zip|zip:世界", "file:/d/na%C3%AFve-%E6%97%A5%E6%9C%AC.zip|zip:%E4%B8%96%E7%95%8C"},
		{"file:/d/100%.zip|zip:", "file:/d/100%25.zip|zip:"},
		{"file:/d/100%2.zip", "file:/d/100%252.zip"},
		{"file:/d/%41%7c.zip", "file:/d/%41%7c.zip"}, // escapes stay as written
		{`file:/d/a"<>\^{}` + "`.txt", "file:/d/a%22%3C%3E%5C%5E%7B%7D%60.txt"},
		{"file:/d/a[1].zip|zip:b[2]", "file:/d/a%5B1%5D.zip|zip:b%5B2%5D"},
		{"http://[::1]:8080/a b?q=x y", "http://[::1]:8080/a%20b?q=x%20y"},
		{"memory://a b/c", "memory://a%20b/c"},
		{"file:/d/tab\there", "file:/d/tab%09here"},
		{"FILE:/d/a.zip|ZIP", "file:/d/a.zip|zip:"},
	}
	for _, tc := range tests {
		p, err := ParseLoose(tc.in)
		if err != nil {
			t.Errorf("ParseLoose(%q): %v", tc.in, err)
			continue
		}
		if got := p.String(); got != tc.want {
			t.Errorf("ParseLoose(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseLooseKeepsStructure(t *testing.T) {
	for _, in := range []string{
		"file:/d/a#b",           // "#" still starts a fragment
		"file:/d/a?b",           // "?" still starts a query, which file: refuses
		"file:/d/a|",            // "|" still splits
		"zip:a b",               // zip is not a root, whatever the characters
		"file:/d/a.zip|zip://x", // authority rules unchanged
	} {
		if _, err := ParseLoose(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseLoose(%q) = %v, want a syntax error", in, err)
		}
	}
}

func TestResolveLoose(t *testing.T) {
	base := MustParse("file:/home/u/")
	p, err := base.ResolveLoose("dir with space/naïve.zip|zip:Auto links.text")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.String(), "file:/home/u/dir%20with%20space/na%C3%AFve.zip|zip:Auto%20links.text"; got != want {
		t.Errorf("ResolveLoose = %q, want %q", got, want)
	}
}

func TestFromPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the expected pipelines below are of POSIX paths")
	}
	dir := t.TempDir()
	for _, name := range []string{"bf v2.zip", "100%.zip", "naïve-日本.zip", "n_structure_trailing_#.json", "a|b?c", "Auto links.text", "x%41"} {
		p, err := FromPath(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("FromPath(%q): %v", name, err)
			continue
		}
		if got := p[0].DecodedPath(); got != filepath.Join(dir, name) {
			t.Errorf("FromPath(%q) decodes to %q", name, got)
		}
		if q, err := Parse(p.String()); err != nil || q.String() != p.String() {
			t.Errorf("FromPath(%q) = %q, not canonical: %v", name, p, err)
		}
	}
	p, err := FromPath(dir + "/sub dir/")
	if err != nil {
		t.Fatal(err)
	}
	if s := p.String(); !strings.HasSuffix(s, "/sub%20dir/") {
		t.Errorf("FromPath of a directory path = %q, want a trailing /", s)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	p, err = FromPath("rel")
	if err != nil {
		t.Fatal(err)
	}
	if got := p[0].DecodedPath(); got != filepath.Join(wd, "rel") {
		t.Errorf("FromPath(\"rel\") = %q, want it under %q", got, wd)
	}
}

func FuzzParseLoose(f *testing.F) {
	for _, tc := range parseTests {
		f.Add(tc.in)
	}
	f.Add("file:/d/bf v2.zip|zip:世界")
	f.Add("http://[::1]/a b?x y")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseLoose(s)
		if err != nil {
			checkError(t, "ParseLoose", err)
		} else {
			checkCanonical(t, "ParseLoose", p)
		}
		// A pipeline Parse accepts means the same to ParseLoose.
		q, err := Parse(s)
		if err != nil {
			return
		}
		r, err := ParseLoose(q.String())
		if err != nil {
			t.Fatalf("ParseLoose(%q) of a canonical pipeline: %v", q, err)
		}
		if r.String() != q.String() {
			t.Fatalf("ParseLoose(%q) = %q", q, r)
		}
		if r, err := ParseLoose(s); err != nil || r.String() != q.String() {
			t.Fatalf("ParseLoose(%q) = %q, %v; Parse gives %q", s, r, err, q)
		}
	})
}
