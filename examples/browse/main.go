// Browse serves the directory location of a URL pipeline as pages to
// browse in a web browser, with the handler of package browse, which
// steps into the archives nested in it: /data/inner.zip/ lists the zip
// inside the zip, where http.FileServerFS would serve it as a file.
//
// Usage:
//
//	go run ./examples/browse [-addr 127.0.0.1:8080] URL
//
// For example, to browse the demo archive and a file three archives down:
//
//	go run ./examples/browse "file:$PWD/testdata/demo.zip"
//	curl http://127.0.0.1:8080/data/inner.zip/deep.zip/hello.txt
//	curl 'http://127.0.0.1:8080/data/inner.zip/?format=json'
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/pipefs/pipefs"
	"github.com/pipefs/pipefs/browse"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen on `host:port`")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: browse [-addr host:port] URL")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	fsys, err := pipefs.OpenFS(ctx, flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	tcp, _ := ln.Addr().(*net.TCPAddr)
	h := browse.New(fsys, &browse.Options{
		Logger: slog.Default(),
		// On a loopback address, answer only requests for a loopback
		// name, against DNS rebinding.
		LoopbackOnly: tcp != nil && tcp.IP.IsLoopback(),
	})
	defer h.Close()

	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	idle := make(chan struct{})
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background()) // waits for the requests in flight
		close(idle)
	}()
	log.Printf("serving %s on http://%s/", fsys.Pipeline(), ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	<-idle // then the handler's layers, then fsys, are closed
}
