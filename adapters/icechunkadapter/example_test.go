package icechunkadapter_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"path/filepath"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/icechunkadapter"
	"github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// Open a tag of an Icechunk repository through a pipeline (the tag name
// holds a space and "!", so it is percent-encoded), list an array's
// chunks and read the commit of the snapshot.
func Example() {
	ctx := context.Background()
	dir, err := filepath.Abs("../../../shared/fixtures/icechunk/test-repo-v2")
	if err != nil {
		log.Fatal(err)
	}
	fsys, err := vfs.OpenFS(ctx, "file:"+dir+"/|icechunk://tag.it%20works!/", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()

	chunks, err := fs.Glob(fsys, "group1/small_chunks/c/*")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(chunks)

	info, err := fs.Stat(fsys, ".")
	if err != nil {
		log.Fatal(err)
	}
	snap := info.Sys().(*vfs.Origin).Header.(*icechunkadapter.Snapshot)
	fmt.Println(snap.ID, snap.Message)
	// Output:
	// [group1/small_chunks/c/0 group1/small_chunks/c/1 group1/small_chunks/c/2 group1/small_chunks/c/3]
	// QTP2RTYS5YQW8RPSQ93G delete a chunk
}

// Log lists the history of a branch, newest first, as `pipefs log` prints
// it.
func ExampleLog() {
	ctx := context.Background()
	dir, err := filepath.Abs("../../../shared/fixtures/icechunk/test-repo-v1")
	if err != nil {
		log.Fatal(err)
	}
	loc, err := fileroot.OpenPath(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer loc.Tree.(*fileroot.Tree).Close()
	history, err := icechunkadapter.Log(ctx, loc.Tree, "branch.main", nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range history {
		fmt.Println(s.ID, s.Time.Format("2006-01-02T15:04:05.000000Z"), s.Message)
	}
	// Output:
	// NXH3M0HJ7EEJ0699DPP0 2025-02-19T21:11:56.017780Z set virtual chunk
	// 7XAF0Q905SH4938DN9CG 2025-02-19T21:11:56.012709Z fill data
	// GC4YVH5SKBPEZCENYQE0 2025-02-19T21:11:55.996389Z empty structure
	// P874YS3J196959RDHX7G 2025-02-19T21:11:55.981700Z Repository initialized
}

// Virtual chunks are read only when allowed: here by a resolver (a
// program could fetch the URL; this one serves zeros).
func ExampleOptions() {
	ctx := context.Background()
	dir, err := filepath.Abs("../../../shared/fixtures/icechunk/test-repo-v2")
	if err != nil {
		log.Fatal(err)
	}
	loc, err := fileroot.OpenPath(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer loc.Tree.(*fileroot.Tree).Close()

	tree, err := icechunkadapter.Open(ctx, loc.Tree, "branch.main", nil)
	if err != nil {
		log.Fatal(err)
	}
	_, err = tree.OpenBlob(ctx, "group1/big_chunks/c/0/0")
	fmt.Println(err)
	tree.Close()

	tree, err = icechunkadapter.Open(ctx, loc.Tree, "branch.main", &icechunkadapter.Options{
		VirtualPrefixes: []string{"s3://testbucket/"},
		Resolve: func(ctx context.Context, c icechunkadapter.VirtualChunk) (driver.Blob, error) {
			fmt.Println("resolving", c.URL, c.Offset, c.Length)
			return driver.BytesBlob(make([]byte, c.Length), nil), nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer tree.Close()
	b, err := tree.OpenBlob(ctx, "group1/big_chunks/c/0/0")
	if err != nil {
		log.Fatal(err)
	}
	p := make([]byte, 19)
	n, err := b.ReadAt(ctx, p, 0)
	fmt.Println(n, err)
	// Output:
	// open group1/big_chunks/c/0/0: virtual chunk at "s3://testbucket/can_read_old/chunk-1" (bytes 0-19) is outside the repository; reading it needs icechunkadapter.Options.VirtualPrefixes or Resolve: permission denied
	// resolving s3://testbucket/can_read_old/chunk-1 0 19
	// 19 <nil>
}
