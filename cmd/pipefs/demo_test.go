package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoZip returns the pipeline of the repository's testdata/demo.zip.
func demoZip(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "..", "testdata", "demo.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("testdata/demo.zip, part of the repository, is missing: %v", err)
	}
	return "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath()
}

// TestDemo runs the commands that the README shows on testdata/demo.zip.
func TestDemo(t *testing.T) {
	demo := demoZip(t)

	out := mustRun(t, "tree", demo)
	want := demo + `|zip:
├── README.txt (175)
├── data/
│   └── inner.zip (1287)
├── docs/
│   └── guide.md (283)
├── site/
│   ├── index.html (225)
│   └── style.css (89)
└── templates/
    ├── list.tmpl (51)
    └── page.tmpl (89)

4 directories, 7 files
`
	if out != want {
		t.Errorf("tree demo.zip:\n%s\nwant:\n%s", out, want)
	}

	out = mustRun(t, "cat", demo+"|zip:data/inner.zip|zip:deep.zip|zip:hello.txt")
	if want := "hello from three zips down\n"; out != want {
		t.Errorf("cat three zips down = %q, want %q", out, want)
	}

	out = mustRun(t, "ls", "-lR", demo+"|zip:data/inner.zip")
	want = "" +
		"787  -rw-r--r--  2024-05-06 07:08:10  deep.zip\n" +
		"  -  dr-xr-xr-x  2024-05-06 07:08:10  notes/\n" +
		" 44  -rw-r--r--  2024-05-06 07:08:10  notes/a.txt\n" +
		" 58  -rw-r--r--  2024-05-06 07:08:10  notes/b.txt\n"
	if out != want {
		t.Errorf("ls -lR inner.zip:\n%s\nwant:\n%s", out, want)
	}

	out = mustRun(t, "stat", demo+"|zip:data/inner.zip|zip:deep.zip|zip:big.txt")
	for _, line := range []string{
		"Size:     10800",
		"URL:      " + demo + "|zip:data/inner.zip|zip:deep.zip|zip:big.txt",
		"Header:   *zip.FileHeader",
		"  Method:             Deflate (8)",
		"  UncompressedSize64: 10800",
	} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("stat big.txt does not contain %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "Extra:") {
		t.Errorf("stat shows an empty Extra field:\n%s", out)
	}

	out = mustRun(t, "resolve", "--detect", demo+"|zip:data/inner.zip|zip:deep.zip")
	if want := demo + "|zip:data/inner.zip|zip:deep.zip|zip:\n"; out != want {
		t.Errorf("resolve --detect = %q, want %q", out, want)
	}
}
