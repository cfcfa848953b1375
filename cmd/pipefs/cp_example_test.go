package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Example_cp copies the repository's testdata/demo.zip as a tree with
// cp -R, and one member of it into the same directory, then lists what
// was written.
func Example_cp() {
	dir, err := os.MkdirTemp("", "pipefs-cp-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	demo := filepath.Join("..", "..", "testdata", "demo.zip")
	ctx := context.Background()
	run(ctx, []string{"cp", "-R", demo, filepath.Join(dir, "demo")}, os.Stdout, os.Stderr)
	run(ctx, []string{"cp", demo + "|zip:docs/guide.md", dir}, os.Stdout, os.Stderr)

	filepath.WalkDir(dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || name == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, name)
		if d.IsDir() {
			fmt.Printf("%s/\n", filepath.ToSlash(rel))
			return nil
		}
		info, _ := d.Info()
		fmt.Printf("%s %d\n", filepath.ToSlash(rel), info.Size())
		return nil
	})
	// Output:
	// demo/
	// demo/README.txt 175
	// demo/data/
	// demo/data/inner.zip 1287
	// demo/docs/
	// demo/docs/guide.md 283
	// demo/site/
	// demo/site/index.html 225
	// demo/site/style.css 89
	// demo/templates/
	// demo/templates/list.tmpl 51
	// demo/templates/page.tmpl 89
	// guide.md 283
}
