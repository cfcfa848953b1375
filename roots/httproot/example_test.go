package httproot_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"time"

	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

// Reading one member of a remote zip costs about three requests: the
// suffix read at open (end records and, often, the central directory),
// the rest of a large central directory, and the member with its local
// header.
func Example() {
	o := &httproot.Options{
		Client:  &http.Client{},
		Timeout: 10 * time.Second,
		Remote:  remote.Options{Retry: remote.Retry{MaxAttempts: 3}},
	}
	opts := &vfs.Options{Schemes: map[string]any{"http": o, "https": o}}
	fsys, err := vfs.OpenFS(context.Background(), "https://example.com/data/archive.zip?token=abc|zip:", opts)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	b, err := fs.ReadFile(fsys, "dir/readme.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s", b)
}
