package disk_test

import (
	"fmt"
	"log"
	"os"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs"
)

// A program that keeps its indexes in a directory of its own, bounded at
// 256 MiB, rather than in the default one: set the store in the options
// it opens pipelines with.
func Example() {
	dir, err := os.MkdirTemp("", "pipefs-index")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := disk.Open(dir, 256<<20)
	if err != nil {
		log.Fatal(err)
	}
	opts := &vfs.Options{Disk: store}
	_ = opts // vfs.OpenFS(ctx, "https://example.com/a.tar.gz", opts) ...

	// Drivers reach the store through vfs.Env.DiskIndex; the store itself
	// keeps bytes under keys.
	if err := store.Put("key", []byte("an index")); err != nil {
		log.Fatal(err)
	}
	b, ok := store.Get("key", 0)
	fmt.Printf("%s %v\n", b, ok)
	// Output: an index true
}
