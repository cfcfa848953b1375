package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"log"
	"net"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs"
)

// shutdownTimeout bounds how long serve waits for requests in flight after
// SIGINT or SIGTERM.
const shutdownTimeout = 10 * time.Second

func newServeCmd(g *globals) *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] URL",
		Short: "Serve a directory location over HTTP",
		Long: `serve serves the directory location that URL names over HTTP, with
http.FileServerFS: directory listings, index.html, Range requests and
conditional requests (If-Modified-Since, and If-None-Match against the
ETag it sends) all work on members of archives, which are read in place.
A container file is served as the directory it holds.

serve logs the address it listens on, and on SIGINT or SIGTERM stops
accepting connections and waits for the requests in flight, then exits
with status 0.`,
		Annotations: map[string]string{stopsOnSignal: "yes"},
		Example: `  pipefs serve 'file:/data/site.zip'
  pipefs serve --addr :8000 'file:/data/a.zip|zip:site/'
  curl -r 0-99 http://127.0.0.1:8080/README.txt`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			loc, err := g.openLocation(ctx, args[0])
			if err != nil {
				return err
			}
			defer loc.Close()
			if loc.fsys == nil {
				return fmt.Errorf("serve %s: %w: serve needs a directory location", loc.file.URL(), vfs.ErrNotDir)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			logger := log.New(cmd.ErrOrStderr(), "pipefs: ", log.LstdFlags)
			srv := &http.Server{
				Handler:           newHandler(loc.fsys),
				ReadHeaderTimeout: 30 * time.Second,
				ErrorLog:          logger,
			}
			logger.Printf("serving %s on http://%s/", loc.fsys.Pipeline(), ln.Addr())
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			select {
			case err := <-errc:
				return err
			case <-ctx.Done():
			}
			logger.Printf("shutting down")
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				return err
			}
			if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT`")
	return cmd
}

// newHandler returns the handler that serves fsys: http.FileServerFS
// reading with each request's context, and a strong ETag on regular files
// so that If-None-Match and If-Range work.
func newHandler(fsys *vfs.FS) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rfs := fsys.WithContext(r.Context())
		if name := fsName(r.URL.Path); name != "" {
			if info, err := rfs.Stat(name); err == nil && info.Mode().IsRegular() {
				w.Header().Set("ETag", etag(info))
			}
		}
		http.FileServerFS(rfs).ServeHTTP(w, r)
	})
}

// fsName returns the fs name of a request path, "" when there is none.
func fsName(urlPath string) string {
	name := strings.TrimPrefix(path.Clean("/"+urlPath), "/")
	if name == "" || !fs.ValidPath(name) {
		return ""
	}
	return name
}

// etag is a strong entity tag for a file: a hash of its canonical URL, size
// and modification time, which change when its bytes do.
func etag(info fs.FileInfo) string {
	h := fnv.New64a()
	if o, ok := info.Sys().(*vfs.Origin); ok {
		fmt.Fprint(h, o.URL)
	}
	fmt.Fprint(h, "\x00", info.Size(), "\x00", info.ModTime().UnixNano())
	return fmt.Sprintf(`"%016x"`, h.Sum64())
}
