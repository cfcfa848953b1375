package zipadapter

import (
	"archive/zip"
	"context"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pipefs/pipefs/vfs/driver"

	pfstest "github.com/pipefs/pipefs/fstest"
)

// TestDemo checks the repository's demo archive (testdata/make-demo.sh):
// three levels deep, stored all the way to deep.zip.
func TestDemo(t *testing.T) {
	ctx := context.Background()
	b, err := os.ReadFile("../../testdata/demo.zip")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, driver.BytesBlob(b, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(pfstest.TreeFS(a), "README.txt", "docs/guide.md", "site/index.html", "site/style.css",
		"templates/page.tmpl", "templates/list.tmpl", "data/inner.zip"); err != nil {
		t.Error(err)
	}
	tmpl, err := template.ParseFS(pfstest.TreeFS(a), "templates/*.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := tmpl.ExecuteTemplate(&sb, "page.tmpl", map[string]any{"Title": "T", "Items": []string{"x", "y"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "<li>y</li>") {
		t.Errorf("page.tmpl = %q, want the list", sb.String())
	}

	var tree driver.Tree = a
	for _, p := range []string{"data/inner.zip", "deep.zip"} {
		fi, _ := tree.Stat(ctx, p)
		if h := fi.Sys().(*zip.FileHeader); h.Method != zip.Store {
			t.Errorf("%s has method %d, want stored", p, h.Method)
		}
		m, err := tree.OpenBlob(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if tree, err = Open(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	var big strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&big, "line %03d: the quick brown fox jumps over the lazy dog\n", i)
	}
	got, err := readAll(tree, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got["hello.txt"] != "hello from three zips down\n" || got["big.txt"] != big.String() || len(got) != 2 {
		t.Errorf("deep.zip = %q", got)
	}
	fi, _ := tree.Stat(ctx, "big.txt")
	if fi.Sys().(*zip.FileHeader).Method != zip.Deflate {
		t.Error("big.txt is not deflated")
	}
	_ = fs.ValidPath
}
