package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"path"
	"strconv"
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
A container file is served as the directory it holds. The elements of a
dataset (an HDF5 dataset, an image's decoded pixels) are served as
application/octet-stream.

A file whose first block cannot be read is answered with an error status
and the message as its body: 501 for what pipefs does not read, 404, 403,
and 500 for anything else, such as corrupt data. A read that fails once
the body has started cuts the connection. Both are logged.

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
				Handler:           newHandler(loc.fsys, logger),
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
//
// A regular file's first block is read before any header is written, so
// that a file that cannot be read (a type that is not read, corrupt data)
// gets an error status with the message as its body instead of a 200
// whose body breaks off; a read that fails later, once the body has
// started, can only cut the connection, and is logged. The elements of a
// dataset (an HDF5 dataset, decoded pixels) are served as
// application/octet-stream, not sniffed. logger (nil: none) logs the
// failures.
func newHandler(fsys *vfs.FS, logger *log.Logger) http.Handler {
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rfs := fsys.WithContext(r.Context())
		if name := fsName(r.URL.Path); name != "" {
			if info, err := rfs.Stat(name); err == nil && info.Mode().IsRegular() {
				if err := readFirst(rfs, name, rangeStart(r)); err != nil {
					if r.Context().Err() == nil {
						logger.Printf("%s %s: %s", r.Method, r.URL.Path, message(err))
					}
					http.Error(w, message(err), errorStatus(err))
					return
				}
				w.Header().Set("ETag", etag(info))
				if isDataset(info) {
					w.Header().Set("Content-Type", "application/octet-stream")
				}
			}
		}
		http.FileServerFS(&logFS{FS: rfs, logger: logger, req: r}).ServeHTTP(w, r)
	})
}

// firstBlock is how many bytes of a file newHandler reads before it
// answers: as many as http.ServeContent sniffs.
const firstBlock = 512

// readFirst reads the first block at off of the file name of fsys: the
// start of the file, or of the range a request asks for, so that a range
// near the end of a large member or dataset does not decode its start.
func readFirst(fsys fs.FS, name string, off int64) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, firstBlock)
	if ra, ok := f.(io.ReaderAt); ok {
		_, err = ra.ReadAt(buf, off)
	} else {
		_, err = io.ReadFull(f, buf)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// rangeStart returns the first byte of the first range a request asks for
// ("Range: bytes=N-..."), or 0.
func rangeStart(r *http.Request) int64 {
	spec, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes=")
	if !ok {
		return 0
	}
	start, _, _ := strings.Cut(spec, "-")
	n, err := strconv.ParseInt(strings.TrimSpace(start), 10, 64)
	if err != nil || n < 0 {
		return 0 // a suffix range (bytes=-N) or a malformed one
	}
	return n
}

// errorStatus is the HTTP status of a failure to read a file.
func errorStatus(err error) int {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return http.StatusNotFound
	case errors.Is(err, fs.ErrPermission):
		return http.StatusForbidden
	case errors.Is(err, errors.ErrUnsupported):
		return http.StatusNotImplemented
	}
	return http.StatusInternalServerError
}

// isDataset reports whether info describes a file that an adapter
// yielding datasets gives (the elements of an HDF5 dataset, the pixels
// of an image), whose bytes hold no content type to sniff.
func isDataset(info fs.FileInfo) bool {
	o, ok := info.Sys().(*vfs.Origin)
	if !ok {
		return false
	}
	p, err := vfs.Parse(o.URL)
	if err != nil || len(p) == 0 {
		return false
	}
	_, yields, ok := vfs.SchemeKinds(p[len(p)-1].Scheme)
	return ok && yields == vfs.KindDataset
}

// logFS is an FS whose files log the read errors that http.FileServerFS
// drops once the body has started.
type logFS struct {
	fs.FS
	logger *log.Logger
	req    *http.Request
}

func (l *logFS) Open(name string) (fs.File, error) {
	f, err := l.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &logFile{File: f, fs: l, name: name}, nil
}

// logFile is a file of a logFS: it logs its first read error.
type logFile struct {
	fs.File
	fs     *logFS
	name   string
	logged bool
}

func (f *logFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if err != nil && err != io.EOF && !f.logged && f.fs.req.Context().Err() == nil {
		f.logged = true
		f.fs.logger.Printf("%s %s: reading %s: %s", f.fs.req.Method, f.fs.req.URL.Path, f.name, message(err))
	}
	return n, err
}

func (f *logFile) Seek(offset int64, whence int) (int64, error) {
	s, ok := f.File.(io.Seeker)
	if !ok {
		return 0, fmt.Errorf("seek %s: %w", f.name, errors.ErrUnsupported)
	}
	return s.Seek(offset, whence)
}

func (f *logFile) ReadDir(n int) ([]fs.DirEntry, error) {
	d, ok := f.File.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: vfs.ErrNotDir}
	}
	return d.ReadDir(n)
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
