package browse_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/pipefs/pipefs"
	"github.com/pipefs/pipefs/browse"
	"github.com/pipefs/pipefs/roots/memroot"
)

// zipOf returns a zip archive of the named files, stored.
func zipOf(files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			log.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

// get returns the body of the answer to GET url.
func get(url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	return b
}

func Example() {
	// site.zip, in the process-wide memory store, holds docs.zip, a zip
	// inside the zip.
	docs := zipOf(map[string]string{"guide.txt": "a guide\n"})
	site := zipOf(map[string]string{"docs.zip": string(docs)})
	if err := memroot.WriteFile("example/site.zip", site); err != nil {
		log.Fatal(err)
	}
	fsys, err := pipefs.OpenFS(context.Background(), "memory:example/site.zip")
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()

	// The handler serves fsys; a path steps into the archives in it.
	h := browse.New(fsys, nil)
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	// A file of the inner zip, as it is.
	fmt.Printf("%s", get(srv.URL+"/docs.zip/guide.txt"))

	// The page of the inner zip, as JSON.
	var page struct {
		Pipeline  string `json:"pipeline"`
		Directory struct {
			Entries []struct {
				Name string `json:"name"`
				Href string `json:"href"`
			} `json:"entries"`
		} `json:"directory"`
	}
	if err := json.Unmarshal(get(srv.URL+"/docs.zip/?format=json"), &page); err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.Pipeline)
	for _, e := range page.Directory.Entries {
		fmt.Println(e.Name, e.Href)
	}
	// Output:
	// a guide
	// memory:example/site.zip|zip:docs.zip|zip:
	// guide.txt /docs.zip/guide.txt
}
