// Command zipls lists every name of a local zip archive, one a line, as
// `pipefs ls -R` does, through the zip adapter's index alone: no URL
// pipeline, no root, no CLI. scripts/manyzip.sh times it beside pipefs and
// unzip -Z1.
//
//	go build -o /tmp/zipls ./scripts/zipls && /tmp/zipls many.zip >/dev/null
package main

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"

	"github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/fileroot"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: zipls FILE.zip")
		os.Exit(2)
	}
	if err := list(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "zipls:", err)
		os.Exit(1)
	}
}

func list(name string) error {
	ctx := context.Background()
	loc, err := fileroot.OpenPath(ctx, name)
	if err != nil {
		return err
	}
	if loc.Blob == nil {
		return fmt.Errorf("%s is not a file", name)
	}
	a, err := zipadapter.Open(ctx, loc.Blob, nil)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	err = fs.WalkDir(fstest.TreeFS(a), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || name == "." {
			return err
		}
		w.WriteString(name)
		if d.IsDir() {
			w.WriteByte('/')
		}
		return w.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	return w.Flush()
}
