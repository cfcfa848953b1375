// Serve serves the directory location of a URL pipeline over HTTP with
// http.FileServerFS. Files inside archives are read in place, and Range
// and conditional (If-Modified-Since) requests work on them.
//
// Usage:
//
//	go run ./examples/serve [-addr 127.0.0.1:8080] URL
//
// For example, to serve the site folder of the demo archive:
//
//	go run ./examples/serve "file:$PWD/testdata/demo.zip|zip:site/"
//	curl -r 0-14 http://127.0.0.1:8080/index.html
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/pipefs/pipefs"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen on `host:port`")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: serve [-addr host:port] URL")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}

	// A container file opens as the directory it holds:
	// "file:/d/site.zip" opens as "file:/d/site.zip|zip:".
	fsys, err := pipefs.OpenFS(context.Background(), flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving %s on http://%s/", fsys.Pipeline(), ln.Addr())
	log.Fatal(http.Serve(ln, http.FileServerFS(fsys)))
}
