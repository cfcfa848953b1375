package main

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/browse"
)

// shutdownTimeout bounds how long serve waits for requests in flight after
// SIGINT or SIGTERM.
const shutdownTimeout = 10 * time.Second

func newServeCmd(g *globals) *cobra.Command {
	var (
		addr       string
		revalidate time.Duration
	)
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--revalidate DURATION] URL",
		Short: "Browse a directory location, its archives and arrays, in a web browser",
		Long: `serve serves the directory location that URL names over HTTP, read-only,
as pages to browse in a web browser, and its files as they are.

A request path maps onto the pipeline: a container file that format
detection recognises is a folder to click into, so that
/outer.zip/inner.tar.gz/dir/ shows
"URL|zip:inner.tar.gz|gzip:|pipefs.tar:dir/". Without the trailing "/",
/outer.zip is the file itself, with Range requests and conditional
requests (If-Modified-Since, and If-None-Match against the ETag it
sends). A directory's index.html is served as the directory unless the
query has ?list.

Directory pages list name, size, modification time (UTC) and kind: the
detected format of a file, or the array, group or store a directory
holds. An array or group (Zarr v2 or v3, N5, neuroglancer precomputed,
HDF5, an image) shows what "pipefs array" shows: shape, data type,
chunks, codecs, attributes; a 2-D plane of a numeric array (index 0 of
its leading axes) or an image has a PNG preview, ?preview=png, at most
512 pixels a side, refused (422) when it would decode more than 256
chunks or 256 MiB, and 501 for elements that are not numbers. The
scales of a precomputed volume are its children: ?child=KEY shows one
(as "pipefs array --scale KEY" does).

At the root of an OCDBT database or Icechunk repository, ?versions
lists its versions (and an Icechunk repository's branches and tags); a
path segment "@VERSION" after the store root (/db.ocdbt/@v3/,
/repo/@tag.v1/) opens the store at that version (so a key at a store's
root that looks like "@v3" or "@tag.x" is out of reach). Every page
shows its canonical pipeline, and ?format=json gives the page's data
as JSON.

Each opened layer is kept for the next request in a small cache, so
browsing a remote archive again costs no new read; layers are closed
when evicted, once idle, and at shutdown. A container inside another
opens through the layer that holds it, reading its bytes there, so
stepping into an archive nested in a remote one costs no request once
the outer object's bytes are cached. Before a kept layer answers, serve
checks that what it was read from is unchanged: a local file by a stat
(size, times, inode) at every request, a remote object (http, s3, gs)
by one conditional request at most once per --revalidate interval
(default 1s; 0 asks at every request), shared by the layers that read
it. A layer whose file or object changed is opened again, and so are
the layers opened through it, so a rewritten or appended archive shows
its new bytes, members and listing at the next request, or once the
interval has passed for a remote one; a served remote directory is
opened again after the interval. A negative --revalidate turns every
check off, and layers show what they first read until they leave the
cache. A file's ETag hashes its URL, size and time and the version of
what it is read from (the local file or remote object holding it), so a
member that changed never answers If-None-Match with 304 for its old
tag. A served local directory is listed at every request; the kinds of
its entries are kept until it lists something else.

A path with "." or ".." segments, an empty segment, an encoded "/" or
"\" or a control character is refused (400). A file or page that cannot
be read is answered with an error page: 404, 403, 501 for what pipefs
does not read, and 500 for anything else, such as corrupt data. A read
that fails once a file's body has started cuts the connection. Both are
logged. Files are served with "X-Content-Type-Options: nosniff" and
"Content-Security-Policy: sandbox", so that an archive's HTML cannot run
scripts as the site; pages run only their own script and style. On a
loopback address, requests whose Host is not a loopback name
(localhost, 127.0.0.1, [::1]) are refused (403), against DNS rebinding.

serve logs the address it listens on, and on SIGINT or SIGTERM stops
accepting connections and waits for the requests in flight, then exits
with status 0. The pages are those of the Go package
github.com/pipefs/pipefs/browse, whose handler a program can serve
itself.`,
		Annotations: map[string]string{stopsOnSignal: "yes"},
		Example: `  pipefs serve testdata/demo.zip
  pipefs serve --addr 127.0.0.1:8000 'file:/data/a.zip|zip:site/'
  pipefs serve --revalidate 30s https://example.com/data/release.zip
  curl -r 0-99 http://127.0.0.1:8080/README.txt
  curl 'http://127.0.0.1:8080/data/inner.zip/?format=json'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			root, err := g.openDir(ctx, "serve", args[0])
			if err != nil {
				return err
			}
			defer root.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			logger := log.New(cmd.ErrOrStderr(), "pipefs: ", log.LstdFlags)
			if revalidate == 0 {
				revalidate = browse.RevalidateAlways
			}
			h := browse.New(root, &browse.Options{
				Logger:       slog.New(slog.NewTextHandler(logWriter{logger}, &slog.HandlerOptions{ReplaceAttr: dropTime})),
				LoopbackOnly: isLoopback(ln.Addr()),
				ErrorText:    message,
				Revalidate:   revalidate,
				VFS:          g.options(),
			})
			defer h.Close()
			srv := &http.Server{
				Handler:           h,
				ReadHeaderTimeout: 30 * time.Second,
				ErrorLog:          logger,
			}
			logger.Printf("serving %s on http://%s/", root.Pipeline(), ln.Addr())
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
	cmd.Flags().DurationVar(&revalidate, "revalidate", browse.DefaultRevalidate, "ask a remote object whether it changed at most once per `DURATION` (0: at every request; negative: check nothing, local files included)")
	return cmd
}

// isLoopback reports whether a listener's address is a loopback one, where
// serve refuses requests for other host names (browse.Options.LoopbackOnly).
func isLoopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// logWriter writes each record of a slog.TextHandler as one line of a
// log.Logger, after its prefix and time.
type logWriter struct{ l *log.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Print(string(p))
	return len(p), nil
}

// dropTime leaves out the time of a record, which the log.Logger writes.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}
