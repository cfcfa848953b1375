// Cat copies files named by URL pipelines to standard output with
// io.Copy, like cat(1). A file inside nested archives is read in place:
// nothing is extracted to disk.
//
// Usage:
//
//	go run ./examples/cat URL...
//
// For example, a file three zips down:
//
//	go run ./examples/cat "file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:deep.zip|zip:hello.txt"
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/pipefs/pipefs"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cat URL...")
		os.Exit(2)
	}
	for _, u := range os.Args[1:] {
		if err := cat(u); err != nil {
			log.Fatal(err)
		}
	}
}

func cat(u string) error {
	f, err := pipefs.Open(context.Background(), u)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(os.Stdout, f)
	return err
}
