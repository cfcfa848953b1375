package browse

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/describe"
	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/internal/nodedesc"
	"github.com/pipefs/pipefs/vfs/driver"
)

// The pages' template, style and script, embedded in the binary. The
// style and script are inlined in each page, and the Content-Security-
// Policy of pages allows exactly them, by hash.
var (
	//go:embed web/page.html
	pageHTML string
	//go:embed web/style.css
	pageStyle string
	//go:embed web/app.js
	pageScript string

	pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
		"last": func(i int, s []crumb) bool { return i == len(s)-1 },
	}).Parse(pageHTML))
	pageCSP = "default-src 'none'; style-src '" + cspHash(pageStyle) + "'; script-src '" + cspHash(pageScript) +
		"'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

// timeLayoutUTC is how pages write modification times.
const timeLayoutUTC = "2006-01-02 15:04:05"

// A page is what a page shows; ?format=json writes it as JSON. Kind is
// "directory", "array", "group", "versions" or "error", and says which of
// Dir, Node, Versions and Error are set (an array or group read from a
// directory has Dir too: its stored files).
type page struct {
	Kind     string        `json:"kind"`
	Path     string        `json:"path"`
	Pipeline string        `json:"pipeline"`
	Crumbs   []crumb       `json:"crumbs"`
	Dir      *dirView      `json:"directory,omitempty"`
	Node     *nodeView     `json:"node,omitempty"`
	Versions *versionsView `json:"versions,omitempty"`
	Error    *errorView    `json:"error,omitempty"`

	Title  string       `json:"-"`
	Style  template.CSS `json:"-"`
	Script template.JS  `json:"-"`
}

// A dirView is a directory listing.
type dirView struct {
	Entries []entryView `json:"entries"`
	More    int         `json:"more,omitempty"`  // entries left out past maxEntries
	Store   bool        `json:"store,omitempty"` // the root of a versioned store
	Parent  bool        `json:"-"`
}

// An entryView is one entry of a listing.
type entryView struct {
	Name     string `json:"name"`
	Href     string `json:"href"`          // its page, or the file itself
	Raw      string `json:"raw,omitempty"` // the file itself, when Href is its page
	Dir      bool   `json:"dir"`
	Size     int64  `json:"size"` // -1 for a directory
	Time     string `json:"modified,omitempty"`
	Kind     string `json:"kind"`
	Label    string `json:"-"`
	SizeText string `json:"-"` // the size as "ls -h" writes it
	Bytes    string `json:"-"` // the exact size, shown on hover
}

// A nodeView is what "pipefs array" shows of an array or group.
type nodeView struct {
	Title       string          `json:"-"`
	OpenedAs    string          `json:"opened_as,omitempty"` // the dataset's pipeline, when not the page's
	Rows        []metaRow       `json:"-"`
	Description json.RawMessage `json:"description"` // pipefs array --json
	Children    []crumb         `json:"children,omitempty"`
	ChildLinks  []crumb         `json:"-"`                    // the children the page's listing does not hold
	Preview     string          `json:"preview,omitempty"`    // the preview's URL
	PreviewNote string          `json:"-"`                    // what the preview shows
	NoPreview   string          `json:"no_preview,omitempty"` // why there is none
	Range       *rangeView      `json:"range,omitempty"`      // of the values previewed or listed
	Values      *valuesView     `json:"values,omitempty"`     // of a 1-D or scalar array
}

// A metaRow is one line of a node's description.
type metaRow struct{ Key, Value string }

// A versionsView lists the versions of a store.
type versionsView struct {
	Counted bool          `json:"-"`
	List    []versionView `json:"versions"`
	Refs    []refView     `json:"refs,omitempty"`
}

type versionView struct {
	ID      string `json:"id"`
	Href    string `json:"href"`
	Time    string `json:"time"`
	Keys    int64  `json:"keys"`
	Message string `json:"message,omitempty"`
}

type refView struct {
	Name     string `json:"name"`
	Href     string `json:"href"`
	Snapshot string `json:"snapshot"`
}

// An errorView is a failure.
type errorView struct {
	Status     int    `json:"status"`
	StatusText string `json:"-"`
	Message    string `json:"message"`
}

// Bounds of a listing.
const (
	maxEntries = 5000 // entries listed
	maxKinds   = 500  // entries whose kind is detected
	// maxKindReads bounds the entries whose kinds are detected at once.
	maxKindReads = 16
)

// servePage answers a request for a page: a directory's index.html, a
// preview, the versions of a store, or the page of a directory or node.
func (h *Handler) servePage(w http.ResponseWriter, r *http.Request, t *target) error {
	ctx := r.Context()
	q := r.URL.Query()
	if q.Has("child") {
		if err := h.child(ctx, t, q.Get("child")); err != nil {
			return err
		}
	}
	if q.Has("preview") {
		return h.servePreview(w, r, t, q.Get("preview"))
	}
	p := h.newPage(r, t)
	switch {
	case q.Has("versions"):
		if !isStoreRoot(t.l) || t.name != "." {
			return statusError(http.StatusNotFound, "%s is not the root of a versioned store (OCDBT or Icechunk): it has no versions", t.pipeline())
		}
		v, err := remember(t.l, "versions", "", func(v *versionsView) int { return 128 * (len(v.List) + len(v.Refs)) }, func() (*versionsView, error) { return h.versions(ctx, t) })
		if err != nil {
			return err
		}
		p.Kind, p.Versions, p.Title = "versions", v, "versions of "+p.Title
	default:
		dir := t.info != nil && t.info.IsDir() && t.l.fsys != nil
		if dir && t.node == nil && !q.Has("list") && q.Get("format") == "" {
			index := path.Join(t.name, "index.html")
			if info, err := t.l.fsys.WithContext(ctx).Stat(index); err == nil && info.Mode().IsRegular() {
				h.serveFile(w, r, t.l.fsys.WithContext(ctx), index, info, t)
				return nil
			}
		}
		if t.node != nil {
			nv, err := h.nodeView(ctx, t)
			if err != nil {
				return err
			}
			if err := h.addValues(ctx, t, nv); err != nil {
				return err
			}
			p.Node, p.Kind = nv, "group"
			if t.node.IsArray {
				p.Kind = "array"
			}
		}
		if dir {
			d, err := h.dirView(ctx, t)
			if err != nil {
				return err
			}
			p.Dir = d
			if p.Kind == "" {
				p.Kind = "directory"
			}
		}
		if p.Node != nil {
			listChildrenOnce(p.Node, p.Dir)
		}
	}
	h.render(w, r, http.StatusOK, p)
	return nil
}

// newPage returns a page's common part for t.
func (h *Handler) newPage(r *http.Request, t *target) *page {
	p := &page{Path: r.URL.Path, Title: "/", Crumbs: []crumb{{Name: "root", Href: "/"}}}
	if t != nil {
		p.Pipeline = t.pipeline()
		p.Crumbs = append(p.Crumbs, t.crumbs...)
		if len(t.crumbs) > 0 {
			p.Title = t.crumbs[len(t.crumbs)-1].Name
		}
	} else {
		p.Pipeline = h.root.String()
	}
	return p
}

// render writes p as HTML, or as JSON with ?format=json.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, p *page) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cache-Control", "no-cache")
	if r.URL.Query().Get("format") == "json" {
		// "<", ">" and "&" as they are ("<i2"): the answer is JSON,
		// never read as HTML (nosniff).
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		hdr.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(b.Bytes())
		return
	}
	p.Style, p.Script = template.CSS(pageStyle), template.JS(pageScript)
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		h.logger.Error("rendering a page failed", "method", r.Method, "path", r.URL.Path, "err", err)
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
		return
	}
	hdr.Set("Content-Security-Policy", pageCSP)
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// fail answers a request with an error page, and logs the failure. t may
// be nil (the request was refused before its path was resolved).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, t *target, err error) {
	status := errorStatus(err)
	if r.Context().Err() == nil {
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		h.logger.Log(r.Context(), level, "request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", h.errorText(err))
	}
	p := h.newPage(r, t)
	p.Kind, p.Title = "error", fmt.Sprintf("%d %s", status, http.StatusText(status))
	p.Error = &errorView{Status: status, StatusText: http.StatusText(status), Message: h.errorText(err)}
	if h.hide {
		p.Error.Message = p.Title
	}
	h.render(w, r, status, p)
}

// dirView lists directory t.name of t.l, with each entry's kind; it is
// kept with the layer for the directory's modification time. The
// directory of a tree read live (a served local directory) is listed at
// every request, and what is kept is for what it lists, the name, size,
// time and mode of each entry shown: a file appended to or rewritten in
// place leaves the directory's time alone.
func (h *Handler) dirView(ctx context.Context, t *target) (*dirView, error) {
	fsys := t.l.fsys.WithContext(ctx)
	version := fmt.Sprint(t.info.ModTime().UnixNano())
	var infos []fs.FileInfo
	more := 0
	list := func() error {
		ents, err := fsys.ReadDir(t.name)
		if err != nil {
			return err
		}
		if len(ents) > maxEntries {
			more = len(ents) - maxEntries
			ents = ents[:maxEntries]
		}
		infos = make([]fs.FileInfo, 0, len(ents))
		for _, e := range ents {
			info, err := e.Info()
			if err != nil {
				return err
			}
			infos = append(infos, info)
		}
		return nil
	}
	if t.l.live {
		if err := list(); err != nil {
			return nil, err
		}
		version += "\x00" + listingVersion(infos, more)
	}
	d, err := remember(t.l, "dir\x00"+t.name, version, func(d *dirView) int { return 256 * len(d.Entries) }, func() (*dirView, error) {
		if infos == nil {
			if err := list(); err != nil {
				return nil, err
			}
		}
		d := &dirView{Entries: make([]entryView, len(infos)), Store: isStoreRoot(t.l) && t.name == ".", More: more}
		// The kinds are detected concurrently: each may read a head,
		// one request of a remote object.
		var wg sync.WaitGroup
		sem := make(chan struct{}, maxKindReads)
		for i, info := range infos {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				d.Entries[i] = h.entry(ctx, t, info, i < maxKinds)
			})
		}
		wg.Wait()
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	c := *d
	c.Parent = len(t.crumbs) > 0
	return &c, nil
}

// listingVersion names what a listing shows: a hash of the name, size,
// time and mode of each entry, and of the number left out.
func listingVersion(infos []fs.FileInfo, more int) string {
	h := fnv.New64a()
	for _, info := range infos {
		fmt.Fprint(h, info.Name(), "\x00", info.Size(), "\x00", info.ModTime().UnixNano(), "\x00", uint32(info.Mode()), "\x00")
	}
	fmt.Fprint(h, more)
	return fmt.Sprintf("%016x", h.Sum64())
}

// entry describes one entry of a listing of t; detect says whether to
// detect its kind.
func (h *Handler) entry(ctx context.Context, t *target, info fs.FileInfo, detect bool) entryView {
	name := info.Name()
	child := path.Join(t.name, name)
	e := entryView{Name: name, Label: name, Href: t.href + hrefEscape(name), Size: info.Size(), Kind: "file"}
	e.SizeText, e.Bytes = listfmt.HumanSize(e.Size), fmt.Sprintf("%d bytes", e.Size)
	if e.Size == 1 {
		e.Bytes = "1 byte"
	}
	if mt := info.ModTime(); !mt.IsZero() {
		e.Time = mt.UTC().Format(timeLayoutUTC)
	}
	fsys := t.l.fsys.WithContext(ctx)
	switch {
	case info.IsDir():
		e.Dir, e.Size, e.SizeText, e.Bytes, e.Kind = true, -1, "", "", "directory"
		e.Href += "/"
		e.Label += "/"
		if detect {
			e.Kind = h.dirKind(ctx, fsys, child)
		}
	case !info.Mode().IsRegular():
		e.Kind = listfmt.Mode(info.Mode())
		if l := listfmt.LinkTarget(fsys, child, info); l != "" {
			e.Kind += " -> " + l
		}
	case array.NodeOf(info) != nil:
		n := array.NodeOf(info)
		e.Kind = n.Format + " array"
		if n.Array != nil {
			e.Kind = fmt.Sprintf("%s array %s %v", n.Format, n.Array.DType.Name, n.Array.Shape)
		}
		e.Raw, e.Href = e.Href, e.Href+"/"
	case detect:
		if kind, folder := h.sniff(fsys, child); kind != "" {
			e.Kind = kind
			if folder {
				e.Raw, e.Href = e.Href, e.Href+"/"
				e.Label += "/"
			}
		}
	}
	return e
}

// dirKind is the kind of directory name of fsys: the versioned store or
// the array or group it holds, else "directory".
func (h *Handler) dirKind(ctx context.Context, fsys fs.FS, name string) string {
	tree := driver.SubTree(array.FSTree(fsys), name)
	if u, ok, err := h.reg.DetectDir(ctx, tree, false); err == nil && ok {
		return u.Scheme + " store"
	}
	if l, ok := nodedesc.Label(ctx, h.reg, fsys, name, nil); ok {
		return l
	}
	return "directory"
}

// nodeView describes the node of t as "pipefs array" does.
func (h *Handler) nodeView(ctx context.Context, t *target) (*nodeView, error) {
	n := t.node
	d := n.Describe()
	js, err := describe.JSON(d)
	if err != nil {
		return nil, err
	}
	v := &nodeView{Description: js, OpenedAs: t.nodeURL}
	kind := "group"
	if n.IsArray {
		kind = "array"
	}
	v.Title = n.Format + " " + kind
	for _, l := range describe.Lines(d) {
		v.Rows = append(v.Rows, metaRow{Key: l.Label, Value: l.Text})
	}
	_, composite := n.Source.(array.Composite)
	if !n.IsArray && !composite && t.l.fsys != nil && t.info != nil && t.info.IsDir() {
		for _, c := range n.Children {
			v.Children = append(v.Children, crumb{Name: c, Href: t.href + escapePath(c) + "/"})
		}
	}
	if composite && t.child == "" {
		// A volume's children are its scales, read through the volume.
		for _, c := range n.Children {
			v.Children = append(v.Children, crumb{Name: c, Href: "?" + url.Values{"child": {c}}.Encode()})
		}
	}
	if n.IsArray {
		if plan, err := planPreview(n); err != nil {
			v.NoPreview = h.errorText(err)
		} else {
			q := url.Values{"preview": {"png"}}
			if t.child != "" {
				q.Set("child", t.child)
			}
			v.Preview = "?" + q.Encode()
			v.PreviewNote = plan.note
		}
	}
	return v, nil
}

// child makes the page of t that of the child key of its node: a scale of
// a precomputed volume, or a group's child (?child=KEY).
func (h *Handler) child(ctx context.Context, t *target, key string) error {
	if t.node == nil || t.node.IsArray {
		return statusError(http.StatusNotFound, "%s is not a group or volume: it has no child %q", t.pipeline(), key)
	}
	if !slices.Contains(t.node.Children, key) {
		return statusError(http.StatusNotFound, "%s has no child %q; its children are %s", t.pipeline(), key, strings.Join(t.node.Children, ", "))
	}
	n, err := remember(t.l, "child\x00"+t.name+"\x00"+key, "", nil, func() (*array.Node, error) { return t.node.Child(ctx, key) })
	if err != nil {
		return err
	}
	if t.nodeURL == "" {
		t.nodeURL = t.pipeline()
	}
	t.nodeURL += " (child " + key + ")"
	t.node, t.child = n, key
	return nil
}

// escapePath escapes each segment of a slash-separated name.
func escapePath(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = hrefEscape(s)
	}
	return strings.Join(segs, "/")
}

// versions lists the versions of the store whose root t names, and for an
// Icechunk repository its branches and tags.
func (h *Handler) versions(ctx context.Context, t *target) (*versionsView, error) {
	var vd driver.Versioned
	if !t.l.fsys.As(&vd) {
		return nil, statusError(http.StatusNotImplemented, "%s does not list its versions", t.pipeline())
	}
	list, err := vd.Versions(ctx)
	if err != nil {
		return nil, err
	}
	v := &versionsView{List: []versionView{}}
	for _, x := range list {
		if x.Keys >= 0 {
			v.Counted = true
		}
	}
	for _, x := range list {
		v.List = append(v.List, versionView{ID: x.ID, Href: t.storeHref + "@" + url.PathEscape(x.ID) + "/", Time: x.Time.UTC().Format(time.RFC3339Nano), Keys: x.Keys, Message: x.Message})
	}
	if !v.Counted {
		// Snapshots newest first, as a commit log.
		for i, j := 0, len(v.List)-1; i < j; i, j = i+1, j-1 {
			v.List[i], v.List[j] = v.List[j], v.List[i]
		}
	}
	var rl driver.RefLister
	if t.l.fsys.As(&rl) {
		refs, err := rl.ListRefs(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			v.Refs = append(v.Refs, refView{Name: r.Name, Href: t.storeHref + "@" + url.PathEscape(r.Name) + "/", Snapshot: r.Version})
		}
	}
	return v, nil
}
