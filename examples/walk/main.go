// Walk lists every file and directory of a URL pipeline with fs.WalkDir,
// then the names that match a pattern with fs.Glob. Directories end in
// "/".
//
// Usage:
//
//	go run ./examples/walk URL PATTERN
//
// For example:
//
//	go run ./examples/walk "file:$PWD/testdata/demo.zip" 'templates/*.tmpl'
package main

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"os"

	"github.com/pipefs/pipefs"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: walk URL PATTERN")
		os.Exit(2)
	}
	fsys, err := pipefs.OpenFS(context.Background(), os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()

	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case name == ".":
		case d.IsDir():
			fmt.Println(name + "/")
		default:
			fmt.Println(name)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}

	matches, err := fs.Glob(fsys, os.Args[2])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\n%d matches for %s:\n", len(matches), os.Args[2])
	for _, m := range matches {
		fmt.Println(m)
	}
}
