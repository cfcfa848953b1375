package vfs_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"

	_ "github.com/pipefs/pipefs/adapters/taradapter"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// ExampleFS_ReadLink reads a symbolic link of a tar archive with
// fs.ReadLink and describes it with fs.Lstat, which does not follow it.
func ExampleFS_ReadLink() {
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	w.WriteHeader(&tar.Header{Name: "notes.txt", Mode: 0o644, Size: 3})
	w.Write([]byte("hi\n"))
	w.WriteHeader(&tar.Header{Name: "latest", Typeflag: tar.TypeSymlink, Linkname: "notes.txt", Mode: 0o777})
	w.Close()
	if err := memroot.WriteFile("example-links/a.tar", b.Bytes()); err != nil {
		log.Fatal(err)
	}
	defer memroot.RemoveAll("example-links")

	fsys, err := vfs.OpenFS(context.Background(), "memory:/example-links/a.tar", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	target, err := fs.ReadLink(fsys, "latest")
	if err != nil {
		log.Fatal(err)
	}
	link, err := fs.Lstat(fsys, "latest")
	if err != nil {
		log.Fatal(err)
	}
	file, err := fs.Stat(fsys, "latest")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("latest -> %s: Lstat %v, Stat %v\n", target, link.Mode(), file.Mode())
	_, err = fs.ReadLink(fsys, "notes.txt")
	fmt.Println(errors.Is(err, fs.ErrInvalid), err)
	// Output:
	// latest -> notes.txt: Lstat Lrwxrwxrwx, Stat -rw-r--r--
	// true readlink notes.txt: sub-URL 1 "pipefs.tar:notes.txt" (detected, in memory:/example-links/a.tar|pipefs.tar:notes.txt): not a symbolic link
}
