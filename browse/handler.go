package browse

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// Options configure a Handler. A nil *Options, like the zero Options,
// means the defaults.
type Options struct {
	// Logger records the requests that fail (at slog.LevelError for a
	// status of 500 and above, at slog.LevelInfo below), the files whose
	// read fails once their body has started, and the kept layers opened
	// again because what they read changed (slog.LevelInfo). nil logs
	// nothing.
	Logger *slog.Logger

	// LoopbackOnly refuses (403) every request whose Host is not a
	// loopback name (localhost or a name under it, 127.0.0.0/8, [::1]),
	// against DNS rebinding: a page of another site whose name resolves
	// to 127.0.0.1 then cannot read what a handler on a loopback address
	// serves. Set it when the handler listens on a loopback address.
	LoopbackOnly bool

	// HideErrors makes error pages say only their status ("404 Not
	// Found"), not what failed, which names pipelines and may quote what
	// a store answered. The log still records it.
	HideErrors bool

	// ErrorText is the text of a failure that error pages show and the
	// log records; nil means err.Error(). A command can add how to lift
	// a limit it names.
	ErrorText func(err error) string

	// Revalidate is how long a remote object seen current is not asked
	// again whether it changed: zero means DefaultRevalidate,
	// RevalidateAlways asks at every request, and a negative value turns
	// every check off, local files included (see the package doc).
	Revalidate time.Duration

	// VFS holds the options the served FS was opened with. When what
	// the served location reads changes, the handler opens it again with
	// them; their Registry detects the kinds that listings show, and
	// their Limits bound what detection decodes. Containers below the
	// served location are opened relative to the layer that holds them
	// (vfs.FS.OpenFS), with that layer's options. nil means the vfs
	// defaults.
	VFS *vfs.Options
}

// Revalidation intervals with a meaning of their own (Options.Revalidate).
const (
	// DefaultRevalidate is how long a remote object seen current is
	// trusted when Options.Revalidate is zero.
	DefaultRevalidate = time.Second
	// RevalidateAlways asks whether a remote object changed before every
	// request that reads it.
	RevalidateAlways time.Duration = 1
)

// A Handler serves a directory location (a *vfs.FS) over HTTP as pages
// to browse, stepping into the containers, stores and datasets below it,
// and its files as they are. See the package doc for what it answers. It
// is safe for concurrent use.
type Handler struct {
	// root is the pipeline of the served location, whose layer is kept
	// pinned in layers under rootKey.
	root      vfs.Pipeline
	rootKey   string
	opts      *vfs.Options
	reg       *vfs.Registry
	logger    *slog.Logger // never nil
	loopback  bool         // refuse Hosts that are not loopback names
	hide      bool         // error pages without the failure's text
	errorText func(error) string
	layers    *layerCache
}

// New returns a Handler that serves fsys. The layers it opens keep
// fsys's context, whose cancellation stops what they write as they close
// (sidecars). It does not take fsys over: Close closes only the layers
// the handler opened, and fsys must stay open until the requests in
// flight have ended and Close has returned. When
// what fsys reads changes, the handler opens its pipeline again, with
// o.VFS, and that layer is the handler's.
func New(fsys *vfs.FS, o *Options) *Handler {
	if o == nil {
		o = &Options{}
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	errorText := o.ErrorText
	if errorText == nil {
		errorText = func(err error) string { return err.Error() }
	}
	revalidate := o.Revalidate
	switch revalidate {
	case 0:
		revalidate = DefaultRevalidate
	case RevalidateAlways:
		revalidate = 0
	}
	reg := vfs.DefaultRegistry
	if o.VFS != nil && o.VFS.Registry != nil {
		reg = o.VFS.Registry
	}
	h := &Handler{
		root:      fsys.Pipeline(),
		rootKey:   "root\x00" + fsys.Pipeline().String(),
		opts:      o.VFS,
		reg:       reg,
		logger:    logger,
		loopback:  o.LoopbackOnly,
		hide:      o.HideErrors,
		errorText: errorText,
		layers:    newLayerCache(fsys.Context(), reg),
	}
	h.layers.revalidate, h.layers.logger, h.layers.errorText = revalidate, logger, errorText
	h.layers.put(&layer{key: h.rootKey, fsys: fsys})
	return h
}

// rootLayer returns the layer of the served location, held until
// release: the one kept, or, when what it reads changed, the location
// opened again.
func (h *Handler) rootLayer(ctx context.Context) (*layer, error) {
	return h.layers.get(ctx, h.rootKey, true, func(ctx context.Context) (*layer, error) {
		fsys, err := vfs.OpenFS(ctx, h.root.String(), h.opts)
		if err != nil {
			return nil, err
		}
		return &layer{fsys: fsys, closer: fsys}, nil
	})
}

// Close closes the layers the handler opened; those that requests still
// read are closed when the requests end. Requests that come after Close
// are answered 503. Close does not close the served FS.
func (h *Handler) Close() error {
	h.layers.Close()
	return nil
}

// An httpError is a failure with the status it is answered with.
type httpError struct {
	status int
	msg    string
	err    error // the cause, or nil
}

func (e *httpError) Error() string {
	if e.err != nil {
		return e.msg + ": " + e.err.Error()
	}
	return e.msg
}

func (e *httpError) Unwrap() error { return e.err }

func statusError(status int, format string, args ...any) error {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...)}
}

// maxWalks bounds how many times a request walks its path when what it
// reads changes under it (errRestart).
const maxWalks = 3

// ServeHTTP answers a GET or HEAD request with the page or file its path
// names.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.loopback && !loopbackHost(r.Host) {
		h.fail(w, r, nil, statusError(http.StatusForbidden,
			"host %q is not a loopback name: this server answers only localhost, 127.0.0.1 and [::1]", r.Host))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		h.fail(w, r, nil, statusError(http.StatusMethodNotAllowed, "method %s: the server is read-only", r.Method))
		return
	}
	segs, dir, err := splitPath(r.URL)
	if err != nil {
		h.fail(w, r, nil, err)
		return
	}
	var t *target
	for walks := 1; ; walks++ {
		root, rerr := h.rootLayer(r.Context())
		if rerr != nil {
			h.fail(w, r, nil, rerr)
			return
		}
		t = &target{h: h, name: ".", href: "/", storeHref: "/"}
		t.enter(root)
		err = t.resolve(r.Context(), segs, dir)
		if !errors.Is(err, errRestart) || walks == maxWalks {
			break
		}
		t.release()
	}
	defer t.release()
	if err != nil && r.URL.Path == "/favicon.ico" && errorStatus(err) == http.StatusNotFound {
		serveFavicon(w, r)
		return
	}
	if err == nil && !t.page {
		h.serveRaw(w, r, t)
		return
	}
	if err == nil {
		err = h.servePage(w, r, t)
	}
	if err != nil {
		h.fail(w, r, t, err)
	}
}

// loopbackHost reports whether the Host of a request names the local
// machine: localhost (or a name under it) or a loopback address.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// splitPath returns the decoded segments of a request path and whether it
// ends in "/" (a page rather than a file). It refuses, with 400, a path
// that could name something outside the served location or that no
// member name holds: "." and ".." segments, empty ones ("//"), an encoded
// "/" or "\", a "\" and control characters.
func splitPath(u *url.URL) (segs []string, dir bool, err error) {
	raw := u.EscapedPath()
	bad := func(why string) error {
		return statusError(http.StatusBadRequest, "bad path %q: %s", raw, why)
	}
	if !strings.HasPrefix(raw, "/") {
		return nil, false, bad("it does not start with /")
	}
	low := strings.ToLower(raw)
	if strings.Contains(low, "%2f") || strings.Contains(low, "%5c") {
		return nil, false, bad(`an encoded "/" or "\" is not allowed`)
	}
	p := u.Path
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return nil, false, bad("control characters are not allowed")
		}
		if c == '\\' {
			return nil, false, bad(`"\" is not allowed`)
		}
	}
	p = p[1:]
	if p == "" {
		return nil, true, nil
	}
	dir = strings.HasSuffix(p, "/")
	segs = strings.Split(strings.TrimSuffix(p, "/"), "/")
	for _, s := range segs {
		switch s {
		case "":
			return nil, false, bad("empty segments (//) are not allowed")
		case ".", "..":
			return nil, false, bad(`"." and ".." segments are not allowed`)
		}
	}
	return segs, dir, nil
}

// errorStatus is the HTTP status of a failure.
func errorStatus(err error) int {
	var he *httpError
	switch {
	case errors.As(err, &he):
		return he.status
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, vfs.ErrNotDir):
		return http.StatusNotFound
	case errors.Is(err, fs.ErrPermission):
		return http.StatusForbidden
	case errors.Is(err, errors.ErrUnsupported), errors.Is(err, vfs.ErrUnknownScheme):
		return http.StatusNotImplemented
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
