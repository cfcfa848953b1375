// Localzip prints files from a zip archive on the local disk, read in
// place. It imports only package pipefs, which registers the local roots
// and the adapters but no remote root, so the program carries no HTTP
// client and no cloud SDK (see the "Pay for what you import" section of
// the README).
//
// Usage:
//
//	go run ./examples/localzip ZIPFILE NAME...
//
// For example:
//
//	go run ./examples/localzip testdata/demo.zip README.txt docs/guide.md
package main

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/pipefs/pipefs"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: localzip ZIPFILE NAME...")
		os.Exit(2)
	}
	if err := printFiles(os.Args[1], os.Args[2:]); err != nil {
		log.Fatal(err)
	}
}

// printFiles copies the files that names name in the zip file zipPath to
// standard output.
func printFiles(zipPath string, names []string) error {
	abs, err := filepath.Abs(zipPath)
	if err != nil {
		return err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	// The zip file opens as the directory it holds: "file:/d/a.zip" is
	// read as "file:/d/a.zip|zip:".
	fsys, err := pipefs.OpenFS(context.Background(), "file:"+(&url.URL{Path: p}).EscapedPath())
	if err != nil {
		return err
	}
	defer fsys.Close()
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		if _, err := os.Stdout.Write(b); err != nil {
			return err
		}
	}
	return nil
}
