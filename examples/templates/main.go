// Templates parses HTML templates straight from a zip archive with
// template.ParseFS and executes one of them to standard output.
//
// Usage:
//
//	go run ./examples/templates [URL]
//
// URL names a directory of *.tmpl files holding page.tmpl. It defaults to
// the templates folder of testdata/demo.zip, found from the current
// directory (run it from the repository root):
//
//	file:$PWD/testdata/demo.zip|zip:templates/
package main

import (
	"context"
	"html/template"
	"log"
	"net/url"
	"os"
	"path/filepath"

	"github.com/pipefs/pipefs"
)

func main() {
	u, err := defaultURL()
	if err != nil {
		log.Fatal(err)
	}
	if len(os.Args) > 1 {
		u = os.Args[1]
	}

	fsys, err := pipefs.OpenFS(context.Background(), u)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()

	tmpl, err := template.ParseFS(fsys, "*.tmpl")
	if err != nil {
		log.Fatal(err)
	}
	data := struct {
		Title string
		Items []string
	}{
		Title: "Templates from a zip",
		Items: []string{"parsed with template.ParseFS", "read in place, <nothing> extracted"},
	}
	if err := tmpl.ExecuteTemplate(os.Stdout, "page.tmpl", data); err != nil {
		log.Fatal(err)
	}
}

// defaultURL returns the pipeline of testdata/demo.zip's templates. A
// "file:" URL needs an absolute path, with special characters escaped.
func defaultURL() (string, error) {
	abs, err := filepath.Abs(filepath.Join("testdata", "demo.zip"))
	if err != nil {
		return "", err
	}
	return "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath() + "|zip:templates/", nil
}
