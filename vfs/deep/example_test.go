package deep_test

import (
	"archive/zip"
	"context"
	"fmt"
	"io/fs"
	"log"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/taradapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/deep"
)

// exampleZip writes, for the examples, site.zip: a README, a zip inside
// it, and a tar.gz inside that.
func exampleZip(name string) {
	pack := fstest.TarGzBytes(map[string][]byte{"data/t.csv": []byte("a,b\n1,2\n")})
	inner := fstest.ZipBytes(map[string][]byte{"notes.txt": []byte("hello"), "pack.tar.gz": pack}, zip.Store)
	site := fstest.ZipBytes(map[string][]byte{"README": []byte("read me"), "lib/inner.zip": inner}, zip.Deflate)
	if err := memroot.WriteFile(name, site); err != nil {
		log.Fatal(err)
	}
}

func ExampleWalkDir() {
	exampleZip("deep-example/site.zip")
	fsys, err := vfs.OpenFS(context.Background(), "memory:deep-example/site.zip", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	err = deep.WalkDir(fsys, ".", nil, func(path string, d *deep.Entry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case path == ".":
		case d.IsContainer():
			fmt.Printf("%s/ [%s]\n", path, d.Format)
		case d.IsDir():
			fmt.Printf("%s/\n", path)
		default:
			fmt.Println(path)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// README
	// lib/
	// lib/inner.zip/ [zip]
	// lib/inner.zip/notes.txt
	// lib/inner.zip/pack.tar.gz/ [gzip|tar]
	// lib/inner.zip/pack.tar.gz/data/
	// lib/inner.zip/pack.tar.gz/data/t.csv
}

// A container's entries are read from its nested FS, which the walk
// closes once they are walked, and are named by their pipelines. With
// Depth 1, pack.tar.gz, a container in a container, is a file.
func ExampleWalkDir_nested() {
	exampleZip("deep-example/nested.zip")
	fsys, err := vfs.OpenFS(context.Background(), "memory:deep-example/nested.zip", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	err = deep.WalkDir(fsys, ".", &deep.Options{Depth: 1}, func(path string, d *deep.Entry, err error) error {
		if err != nil {
			return err
		}
		if d.Level == 1 {
			fmt.Printf("%s\n  %s\n", path, d.FS.URL(d.Name))
		}
		if path == "lib/inner.zip/notes.txt" {
			b, err := fs.ReadFile(d.FS, d.Name)
			if err != nil {
				return err
			}
			fmt.Printf("  %q\n", b)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// lib/inner.zip/notes.txt
	//   memory:deep-example/nested.zip|zip:lib/inner.zip|zip:notes.txt
	//   "hello"
	// lib/inner.zip/pack.tar.gz
	//   memory:deep-example/nested.zip|zip:lib/inner.zip|zip:pack.tar.gz
}
