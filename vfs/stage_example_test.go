package vfs_test

import (
	"context"
	"fmt"
	"log"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// ExampleOpenDetect opens a zip file, which detection opens as the
// directory it holds, and describes each sub-URL of what was opened.
func ExampleOpenDetect() {
	zip := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello")}, 0)
	if err := memroot.WriteFile("example/site.zip", zip); err != nil {
		log.Fatal(err)
	}
	defer memroot.RemoveAll("example")

	fsys, file, err := vfs.OpenDetect(context.Background(), "memory:/example/site.zip", nil)
	if err != nil {
		log.Fatal(err)
	}
	if file != nil {
		log.Fatal("a zip opened as a plain file")
	}
	defer fsys.Close()
	fmt.Println(fsys.Pipeline())
	for _, s := range fsys.Stages() {
		origin := "written"
		if s.Detected {
			origin = "detected"
		}
		fmt.Printf("%d %-22s %-8s %-9s %s\n", s.Index, s.SubURL, origin, s.Kind, s.Summary)
	}
	// Output:
	// memory:/example/site.zip|zip:
	// 0 memory:/example/site.zip written  file      in-memory store, one per vfs.Cache
	// 1 zip:                   detected directory zip archive
}
