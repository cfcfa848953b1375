package gsroot_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"

	"github.com/pipefs/pipefs/roots/gsroot"
	"github.com/pipefs/pipefs/vfs"
)

// Listing a directory of a public bucket, without credentials. The
// example needs the network, so it is compiled but not run.
func Example() {
	o := &vfs.Options{Schemes: map[string]any{"gs": &gsroot.Options{Anonymous: true}}}
	fsys, err := vfs.OpenFS(context.Background(), "gs://example-bucket/p/", o)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range ents {
		fmt.Println(e.Name())
	}
}
