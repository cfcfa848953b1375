package arcp_test

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"log"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/arcp"
)

func ExampleParse() {
	u, err := arcp.Parse("arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/css/base%20style.css")
	if err != nil {
		log.Fatal(err)
	}
	name, err := u.Name()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.Kind(), u.Authority)
	fmt.Println(name)
	fmt.Println(u)
	// Output:
	// uuid uuid,32a423d6-52ab-47e3-a9cd-54f418a48571
	// css/base style.css
	// arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/css/base%20style.css
}

func ExampleURI_Resolve() {
	base, err := arcp.Parse("arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/css/base.css")
	if err != nil {
		log.Fatal(err)
	}
	for _, ref := range []string{"../fonts/Foo.woff", "../../../outside.txt", "#top"} {
		u, err := base.Resolve(ref)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(u)
	}
	// Output:
	// arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/fonts/Foo.woff
	// arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/outside.txt
	// arcp://uuid,32a423d6-52ab-47e3-a9cd-54f418a48571/css/base.css#top
}

func ExampleNewSHA1() {
	fmt.Println(arcp.NewSHA1(arcp.NamespaceDNS, []byte("www.example.com")))
	fmt.Println(arcp.LocationAuthority("file:/d/a.zip"))
	// Output:
	// 2ed6657d-e927-568b-95e1-2665a8aea6a2
	// uuid,f6ccffca-fecb-59df-bd83-043af5c50477
}

func ExampleSplit() {
	m, err := arcp.Split(vfs.MustParse("file:/d/a.zip|zip:inner.zip|zip:docs/a%20b.txt"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Container)
	fmt.Println(m.Root)
	fmt.Println(m.Name)
	// Output:
	// file:/d/a.zip|zip:inner.zip
	// file:/d/a.zip|zip:inner.zip|zip:
	// docs/a b.txt
}

func ExampleResolver() {
	site := fstest.ZipBytes(map[string][]byte{
		"index.html":   []byte("<link href=css/base.css>\n"),
		"css/base.css": []byte("body { color: black }\n"),
	}, zip.Store)
	if err := memroot.WriteFile("arcp-example/site.zip", site); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	var r arcp.Resolver
	defer r.Close()
	id, err := r.AddPipeline(ctx, "memory:arcp-example/site.zip", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id.Root)
	fmt.Println(id.UUID == arcp.LocationAuthority("memory:arcp-example/site.zip"))
	fmt.Println(id.Name)

	// The link in index.html, resolved against the page's arcp URI.
	page, err := arcp.New(id.Name, "index.html", false)
	if err != nil {
		log.Fatal(err)
	}
	css, err := page.Resolve("css/base.css")
	if err != nil {
		log.Fatal(err)
	}
	f, err := r.OpenURI(ctx, css)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s", css, b)
	// Output:
	// memory:arcp-example/site.zip|zip:
	// true
	// name,site.zip
	// arcp://name,site.zip/css/base.css: body { color: black }
}
