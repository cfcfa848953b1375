package s3root_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"

	"github.com/pipefs/pipefs/roots/s3root"
	"github.com/pipefs/pipefs/vfs"
)

// Reading a member of a zip in a public bucket, without credentials. The
// example needs the network, so it is compiled but not run.
func Example() {
	o := &vfs.Options{Schemes: map[string]any{
		"s3": &s3root.Options{Anonymous: true, Region: "us-west-2"},
	}}
	fsys, err := vfs.OpenFS(context.Background(), "s3://example-bucket/data/a.zip|zip:", o)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	b, err := fs.ReadFile(fsys, "docs/readme.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s", b)
}

// An S3-compatible server: the first path segment is the bucket.
// Credentials come from the environment (AWS_ACCESS_KEY_ID, ...).
func Example_compatible() {
	f, err := vfs.Open(context.Background(), "s3+http://127.0.0.1:7070/bucket/a.zip|zip:x.txt", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Println(f.Size())
}
