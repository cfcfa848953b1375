package browse

import (
	"context"
	"io/fs"
	"net/url"
	"path"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
)

// A target is what a request path names: a file or directory name of a
// layer, or a dataset node, with the layers it holds.
type target struct {
	h    *Handler
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
		t.h.layers.release(l)
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
	h := t.h
	t.info = nil
	for i, seg := range segs {
		last := i == len(segs)-1
		esc := hrefEscape(seg)
		if strings.HasPrefix(seg, "@") {
			esc = url.PathEscape(seg) // a version, linked as the versions page links it
		}
		t.crumbs = append(t.crumbs, crumb{Name: seg, Href: t.href + esc + "/"})
		if t.l.fsys == nil {
			return &fs.PathError{Op: "open", Path: seg, Err: vfs.ErrNotDir}
		}
		if ver, ok := strings.CutPrefix(seg, "@"); ok && t.name == "." && isStoreRoot(t.l) && looksLikeVersion(ver) {
			l, err := h.openVersion(ctx, t.l, ver)
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
		t.href += esc + "/"
		if info.IsDir() {
			t.name = name
			l, err := h.openStore(ctx, t.l, name)
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
		l, err := h.openContainer(ctx, t.l, name)
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
	l, err := h.openDataset(ctx, t.l, t.name, info)
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
// pipeline ends in a sub-URL without a path whose scheme names versions
// in its authority (vfs.SubURL.WithVersion).
func isStoreRoot(l *layer) bool {
	if l.fsys == nil {
		return false
	}
	p := l.fsys.Pipeline()
	last := p[len(p)-1]
	_, err := last.WithVersion("")
	return err == nil && last.Key() == "." && !vfs.IsRootScheme(last.Scheme)
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
