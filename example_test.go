package pipefs_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log"

	"github.com/pipefs/pipefs"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// zipOf returns a zip archive of the named files, each holding a line
// that names it; store says to store them rather than deflate them.
func zipOf(store bool, names ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		if store {
			h.Method = zip.Store
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprintf(w, "this is %s\n", name)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func ExampleOpenFS() {
	// Put a zip archive in the process-wide memory store.
	site := zipOf(false, "README.txt", "docs/intro.md", "docs/guide.md")
	if err := memroot.WriteFile("example/site.zip", site); err != nil {
		log.Fatal(err)
	}

	// A container file opens as the directory it holds: its format is
	// detected and the adapter written out.
	fsys, err := pipefs.OpenFS(context.Background(), "memory:example/site.zip")
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	fmt.Println(fsys.Pipeline())

	data, err := fs.ReadFile(fsys, "docs/guide.md")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(data))
	fmt.Println(fsys.URL("docs/guide.md"))

	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Println(d.Type(), name)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// memory:example/site.zip|zip:
	// this is docs/guide.md
	// memory:example/site.zip|zip:docs/guide.md
	// d--------- .
	// ---------- README.txt
	// d--------- docs
	// ---------- docs/guide.md
	// ---------- docs/intro.md
}

func ExampleOpen() {
	// A zip stored inside a zip, in the process-wide memory store.
	inner := zipOf(true, "numbers.txt")
	var outer bytes.Buffer
	zw := zip.NewWriter(&outer)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "data/inner.zip", Method: zip.Store})
	if err != nil {
		log.Fatal(err)
	}
	w.Write(inner)
	zw.Close()
	if err := memroot.WriteFile("example/outer.zip", outer.Bytes()); err != nil {
		log.Fatal(err)
	}

	// A file two zips down is a *vfs.File: an io.ReaderAt and io.Seeker
	// whose reads go to the bytes of outer.zip, with nothing extracted.
	f, err := pipefs.Open(context.Background(), "memory:example/outer.zip|zip:data/inner.zip|zip:numbers.txt")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	buf := make([]byte, 7)
	if _, err := f.ReadAt(buf, 8); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q of %d bytes\n", buf, f.Size())
	fmt.Println(f.URL())
	// Output:
	// "numbers" of 20 bytes
	// memory:example/outer.zip|zip:data/inner.zip|zip:numbers.txt
}

func Example_parse() {
	for _, s := range []string{
		"FILE:/data/a.zip|ZIP:inner.zip|zip:docs/guide.md",
		"memory:x.zip|zip",
		"file:/d/outer.zip|zip:inner.zip|..:other.zip|zip:f.txt",
		"file:/d/a.zip|zip://x",
	} {
		p, err := vfs.Parse(s)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(p)
	}
	// Output:
	// file:/data/a.zip|zip:inner.zip|zip:docs/guide.md
	// memory:x.zip|zip:
	// file:/d/other.zip|zip:f.txt
	// error: invalid pipeline: sub-URL 1 "zip://x": zip takes no authority ("//")
}

// A relative pipeline is resolved against a base the way a link in a page
// is resolved against the page's URL: it cannot climb out of the
// container, and "..:" steps out of one adapter.
func Example_resolve() {
	base, err := vfs.Parse("file:/srv/site.zip|zip:docs/index.html")
	if err != nil {
		log.Fatal(err)
	}
	for _, ref := range []string{
		"guide.html",
		"../img/logo.png",
		"../../../etc/passwd",
		"assets.zip|zip:logo.png",
		"..:other.zip|zip:",
		"memory:elsewhere.txt",
	} {
		p, err := base.Resolve(ref)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(p)
	}
	// Output:
	// file:/srv/site.zip|zip:docs/guide.html
	// file:/srv/site.zip|zip:img/logo.png
	// file:/srv/site.zip|zip:etc/passwd
	// file:/srv/site.zip|zip:docs/assets.zip|zip:logo.png
	// file:/srv/other.zip|zip:
	// memory:elsewhere.txt
}
