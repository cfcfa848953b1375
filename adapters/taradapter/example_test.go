package taradapter_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"path/filepath"

	"github.com/pipefs/pipefs/vfs"

	_ "github.com/pipefs/pipefs/adapters/taradapter"
	_ "github.com/pipefs/pipefs/roots/fileroot"
)

// Open a directory inside a tar archive written by GNU tar, list it,
// follow a symbolic link and read a member.
func Example() {
	abs, err := filepath.Abs("testdata/gnu.tar")
	if err != nil {
		log.Fatal(err)
	}
	fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(abs)+"|pipefs.tar:dir/", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range ents {
		fmt.Println(e.Type(), e.Name())
	}
	up, err := fs.ReadFile(fsys, "up") // a link to ../hello.txt
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("up: %q\n", up)
	// Output:
	// ---------- a.txt
	// d--------- sub
	// L--------- up
	// up: "hello, tar\n"
}
