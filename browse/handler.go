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
	"path"
	"strings"
	"time"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/rfc3986"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
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
// the handler opened, and fsys must stay open until Close returns. When
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
		layers:    newLayerCache(fsys.Context()),
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
		fsys, err := vfs.OpenPipelineFS(ctx, h.root, h.opts)
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

// ServeHTTP answers a GET or HEAD request with the page or file its path
// names.
func (s *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.loopback && !loopbackHost(r.Host) {
		s.fail(w, r, nil, statusError(http.StatusForbidden,
			"host %q is not a loopback name: this server answers only localhost, 127.0.0.1 and [::1]", r.Host))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.fail(w, r, nil, statusError(http.StatusMethodNotAllowed, "method %s: the server is read-only", r.Method))
		return
	}
	segs, dir, err := splitPath(r.URL)
	if err != nil {
		s.fail(w, r, nil, err)
		return
	}
	root, err := s.rootLayer(r.Context())
	if err != nil {
		s.fail(w, r, nil, err)
		return
	}
	t := &target{s: s, name: ".", href: "/", storeHref: "/"}
	t.enter(root)
	defer t.release()
	err = t.resolve(r.Context(), segs, dir)
	if err == nil && !t.page {
		s.serveRaw(w, r, t)
		return
	}
	if err == nil {
		err = s.servePage(w, r, t)
	}
	if err != nil {
		s.fail(w, r, t, err)
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

// A target is what a request path names: a file or directory name of a
// layer, or a dataset node, with the layers it holds.
type target struct {
	s    *Handler
	l    *layer      // the layer name is in
	name string      // fs name in l.fsys, "." for its root
	info fs.FileInfo // of name, once resolved
	page bool        // a page (the path ends in "/") rather than a file
	node *array.Node // the array or group the page shows, or nil
	// nodeURL is the pipeline the node was opened as, when it is not
	// the target's (a directory of a Zarr array opened with |zarr3:).
	nodeURL string
	child   string // the child of the node shown (?child=KEY), or ""

	href      string   // the request path so far, escaped, ending in "/"
	crumbs    []crumb  // one per segment
	storeHref string   // the href of the store root l is in, for versions
	held      []*layer // to release
}

// A crumb is one link of a page's breadcrumbs.
type crumb struct {
	Name string `json:"name"`
	Href string `json:"href"`
}

func (t *target) release() {
	for _, l := range t.held {
		t.s.layers.release(l)
	}
	t.held = nil
}

// enter makes l the current layer.
func (t *target) enter(l *layer) {
	t.held = append(t.held, l)
	t.l, t.name = l, "."
}

// pipeline returns the canonical pipeline of the target.
func (t *target) pipeline() string {
	if t.l.fsys == nil {
		return t.l.url
	}
	if t.name == "." {
		return t.l.fsys.Pipeline().String()
	}
	u := t.l.fsys.URL(t.name)
	if t.page && t.info != nil && t.info.IsDir() && !strings.HasSuffix(u, "/") && !strings.Contains(u[strings.LastIndexByte(u, '|')+1:], "?") {
		u += "/"
	}
	return u
}

// resolve walks segs from the served location: directories are entered,
// a versioned store's directory opens as the store, a container file
// opens as the directory it holds, and "@VERSION" after a store's root
// opens the store at that version. The last segment without dir set
// names a file (or a directory, which is redirected).
func (t *target) resolve(ctx context.Context, segs []string, dir bool) error {
	s := t.s
	t.info = nil
	for i, seg := range segs {
		last := i == len(segs)-1
		t.crumbs = append(t.crumbs, crumb{Name: seg, Href: t.href + url.PathEscape(seg) + "/"})
		if t.l.fsys == nil {
			return &fs.PathError{Op: "open", Path: seg, Err: vfs.ErrNotDir}
		}
		if ver, ok := strings.CutPrefix(seg, "@"); ok && t.name == "." && isStoreRoot(t.l) && looksLikeVersion(ver) {
			l, err := s.openVersion(ctx, t.l, ver)
			if err != nil {
				return err
			}
			t.enter(l)
			t.href += url.PathEscape(seg) + "/"
			continue
		}
		name := path.Join(t.name, seg)
		info, err := t.l.fsys.WithContext(ctx).Stat(name)
		if err != nil {
			t.name = name // the error page names what is missing
			return err
		}
		if last && !dir {
			t.name, t.info = name, info
			return nil
		}
		t.href += url.PathEscape(seg) + "/"
		if info.IsDir() {
			t.name = name
			l, err := s.openStore(ctx, t.l, name)
			if err != nil {
				return err
			}
			if l != nil {
				t.enter(l)
				t.storeHref = t.href
			}
			continue
		}
		if !info.Mode().IsRegular() {
			return &fs.PathError{Op: "open", Path: name, Err: vfs.ErrNotDir}
		}
		if n := array.NodeOf(info); n != nil {
			// A dataset file (an HDF5 dataset): its page.
			if !last {
				return &fs.PathError{Op: "open", Path: path.Join(name, segs[i+1]), Err: fs.ErrNotExist}
			}
			t.name, t.info, t.node, t.page = name, info, n, true
			return nil
		}
		l, err := s.openContainer(ctx, t.l.fsys.URL(name))
		if err != nil {
			return err
		}
		t.enter(l)
		if l.node != nil {
			if !last {
				return &fs.PathError{Op: "open", Path: path.Join(name, segs[i+1]), Err: fs.ErrNotExist}
			}
			t.node, t.page = l.node, true
			return nil
		}
		if isStoreRoot(l) {
			t.storeHref = t.href
		}
	}
	t.page = true
	info, err := t.l.fsys.WithContext(ctx).Stat(t.name)
	if err != nil {
		return err
	}
	t.info = info
	if n := array.NodeOf(info); n != nil {
		t.node = n
		return nil
	}
	l, err := s.openDataset(ctx, t.l, t.name, info)
	if err != nil || l == nil {
		return err
	}
	t.held = append(t.held, l)
	t.node, t.nodeURL = l.node, l.fsys.Pipeline().String()
	return nil
}

// looksLikeVersion reports whether a path segment "@ver" at a store's
// root names a version rather than a key: ver is vN or a commit time
// (OCDBT), or branch.NAME, tag.NAME or a 20-character snapshot id
// (Icechunk). Other names starting with "@" are keys.
func looksLikeVersion(ver string) bool {
	switch {
	case strings.HasPrefix(ver, "branch."), strings.HasPrefix(ver, "tag."):
		return true
	case len(ver) > 1 && ver[0] == 'v' && strings.Trim(ver[1:], "0123456789") == "":
		return true
	case len(ver) >= 20 && strings.Trim(ver, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "":
		return true // a snapshot id; a longer one is refused as a bad version
	case len(ver) > 10 && strings.Trim(ver[:10], "0123456789-") == "" && strings.Contains(ver, "T"):
		return true // a commit time, 2025-01-30T21:32:58Z
	}
	return false
}

// isStoreRoot reports whether l is the root of a versioned store: its
// pipeline ends in an ocdbt or icechunk sub-URL without a path.
func isStoreRoot(l *layer) bool {
	if l.fsys == nil {
		return false
	}
	p := l.fsys.Pipeline()
	last := p[len(p)-1]
	return (last.Scheme == "ocdbt" || last.Scheme == "icechunk") && last.Key() == "."
}

// dirPipeline returns the pipeline of directory name of fsys, in the
// canonical form of a directory.
func dirPipeline(fsys *vfs.FS, name string) (vfs.Pipeline, error) {
	if name == "." {
		return fsys.Pipeline(), nil
	}
	u := fsys.URL(name)
	if !strings.HasSuffix(u, "/") && !strings.Contains(u[strings.LastIndexByte(u, '|')+1:], "?") {
		u += "/"
	}
	return vfs.Parse(u)
}

// openStore opens directory name of l as the versioned store it holds,
// or returns nil when it holds none.
func (s *Handler) openStore(ctx context.Context, l *layer, name string) (*layer, error) {
	p, err := s.detectDir(ctx, l, "store\x00"+name, "", name, false)
	if err != nil || p == nil {
		return nil, err
	}
	return s.openPipeline(ctx, p)
}

// detectDir detects the format of directory name of l: with dataset, an
// array or group; without, a versioned store. It returns the pipeline
// that opens the directory in that format, or nil when it holds none. l
// remembers the result under key, for version.
func (s *Handler) detectDir(ctx context.Context, l *layer, key, version, name string, dataset bool) (vfs.Pipeline, error) {
	found, err := remember(l, key, version, nil, func() (storeFormat, error) {
		u, ok, err := s.reg.DetectDir(ctx, driver.SubTree(array.FSTree(l.fsys.WithContext(ctx)), name), dataset)
		return storeFormat{u, ok}, err
	})
	if err != nil || !found.ok {
		return nil, err
	}
	p, err := dirPipeline(l.fsys, name)
	if err != nil {
		return nil, err
	}
	return p.Append(found.u), nil
}

// openPipeline opens the directory that p names as a layer.
func (s *Handler) openPipeline(ctx context.Context, p vfs.Pipeline) (*layer, error) {
	return s.layers.get(ctx, "fs\x00"+p.String(), false, func(ctx context.Context) (*layer, error) {
		fsys, err := vfs.OpenPipelineFS(ctx, p, s.opts)
		if err != nil {
			return nil, err
		}
		return &layer{fsys: fsys, closer: fsys}, nil
	})
}

// storeFormat is what store detection found in a directory.
type storeFormat struct {
	u  vfs.SubURL
	ok bool
}

// openVersion opens the store whose root is l at version ver: "v3" or a
// commit time for OCDBT, "branch.NAME", "tag.NAME" or a snapshot id for
// Icechunk.
func (s *Handler) openVersion(ctx context.Context, l *layer, ver string) (*layer, error) {
	p := l.fsys.Pipeline()
	last := p[len(p)-1]
	ref := rfc3986.Escape(ver, rfc3986.IsRegName) // as pipefs writes a ref: tag.it%20works!
	if last.Scheme == "ocdbt" {
		// A commit time keeps its colons, which OCDBT reads as written.
		ref = rfc3986.Escape(ver, func(c byte) bool { return rfc3986.IsRegName(c) || c == ':' })
	}
	q, err := vfs.Parse(p[:len(p)-1].String() + "|" + last.Scheme + "://" + ref + "/")
	if err != nil {
		return nil, &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf("version %q", ver), err: err}
	}
	return s.openPipeline(ctx, q)
}

// openContainer opens the file that pipeline names as the directory its
// detected format holds, or as the dataset it is (an image).
func (s *Handler) openContainer(ctx context.Context, pipeline string) (*layer, error) {
	return s.layers.get(ctx, "file\x00"+pipeline, false, func(ctx context.Context) (*layer, error) {
		fsys, err := vfs.OpenFS(ctx, pipeline, s.opts)
		if err == nil {
			return &layer{fsys: fsys, closer: fsys}, nil
		}
		if !errors.Is(err, vfs.ErrNotDir) && !errors.Is(err, vfs.ErrUnknownFormat) {
			return nil, err
		}
		n, c, nerr := array.OpenNode(ctx, pipeline, s.opts)
		if nerr != nil || n == nil {
			return nil, &httpError{status: http.StatusNotFound, msg: pipeline + " is not a container or dataset that pipefs detects; open it without the trailing /", err: err}
		}
		u := pipeline
		if f, ok := c.(*vfs.File); ok {
			u = f.URL()
		}
		return &layer{node: n, closer: c, url: u}, nil
	})
}

// openDataset opens directory name of l, whose info is given, as the
// array or group it holds, or returns nil when it holds none.
func (s *Handler) openDataset(ctx context.Context, l *layer, name string, info fs.FileInfo) (*layer, error) {
	p, err := s.detectDir(ctx, l, "dataset\x00"+name, fmt.Sprint(info.ModTime().UnixNano()), name, true)
	if err != nil || p == nil {
		return nil, err
	}
	return s.layers.get(ctx, "fs\x00"+p.String(), false, func(ctx context.Context) (*layer, error) {
		fsys, err := vfs.OpenPipelineFS(ctx, p, s.opts)
		if err != nil {
			return nil, err
		}
		info, err := fsys.Stat(".")
		if err != nil {
			fsys.Close()
			return nil, err
		}
		n := array.NodeOf(info)
		if n == nil {
			fsys.Close()
			return nil, fmt.Errorf("%s: %w: not an array or group", p, vfs.ErrUnknownFormat)
		}
		return &layer{fsys: fsys, node: n, closer: fsys}, nil
	})
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
