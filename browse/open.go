package browse

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// An opener opens the location that a name of a layer holds, through
// adapters (sub-URLs appended to its URL), then the formats detected
// after them: a directory as an FS, else the file (see vfs.OpenDetect).
type opener func(adapters ...string) (*vfs.FS, *vfs.File, error)

// openBelow returns the layer kept under key, opening it the first time
// with open from what name of parent holds. The opener open is given
// reads name relative to parent's FS (vfs.FS.OpenDetect): through the
// layers above, with nothing of them opened again, so that a container
// stored in a remote archive costs no request when the archive's bytes
// are cached. The layer then holds parent until it is closed. When parent
// is a remote directory, whose tree remembers the objects it opened as
// they were when it first read them, the opener opens name's pipeline
// instead, with a tree of its own that reads the object as it is now.
func (h *Handler) openBelow(ctx context.Context, key string, parent *layer, name string, open func(opener) (*layer, error)) (*layer, error) {
	return h.layers.get(ctx, key, false, func(ctx context.Context) (*layer, error) {
		relative := !parent.remoteDir()
		l, err := open(func(adapters ...string) (*vfs.FS, *vfs.File, error) {
			if relative {
				return parent.fsys.WithContext(ctx).OpenDetect(name, adapters...)
			}
			return vfs.OpenDetect(ctx, strings.Join(append([]string{parent.fsys.URL(name)}, adapters...), "|"), h.opts)
		})
		if err != nil {
			return nil, err
		}
		if relative {
			l.parent, l.name = parent, name
		}
		return l, nil
	})
}

// dirLayer opens the layer of a directory location through open: a
// store, a version of one or a dataset's directory.
func dirLayer(open opener, adapters ...string) (*layer, error) {
	fsys, f, err := open(adapters...)
	if err != nil {
		return nil, err
	}
	if f != nil {
		err = &fs.PathError{Op: "open", Path: f.URL(), Err: vfs.ErrNotDir}
		f.Close()
		return nil, err
	}
	return &layer{fsys: fsys, closer: fsys}, nil
}

// openStore opens directory name of l as the versioned store it holds,
// or returns nil when it holds none.
func (h *Handler) openStore(ctx context.Context, l *layer, name string) (*layer, error) {
	u, p, err := h.detectDir(ctx, l, "store\x00"+name, "", name, false)
	if err != nil || p == nil {
		return nil, err
	}
	return h.openBelow(ctx, "fs\x00"+p.String(), l, name, func(open opener) (*layer, error) {
		return dirLayer(open, u.String())
	})
}

// detectDir detects the format of directory name of l: with dataset, an
// array or group; without, a versioned store. It returns the sub-URL of
// the format and the pipeline that opens the directory in that format,
// or a nil pipeline when it holds none. l remembers the result under
// key, for version.
func (h *Handler) detectDir(ctx context.Context, l *layer, key, version, name string, dataset bool) (vfs.SubURL, vfs.Pipeline, error) {
	found, err := remember(l, key, version, nil, func() (storeFormat, error) {
		u, ok, err := h.reg.DetectDir(ctx, driver.SubTree(array.FSTree(l.fsys.WithContext(ctx)), name), dataset)
		return storeFormat{u, ok}, err
	})
	if err != nil || !found.ok {
		return vfs.SubURL{}, nil, err
	}
	p, err := dirPipeline(l.fsys, name)
	if err != nil {
		return vfs.SubURL{}, nil, err
	}
	return found.u, p.Append(found.u), nil
}

// storeFormat is what store detection found in a directory.
type storeFormat struct {
	u  vfs.SubURL
	ok bool
}

// openVersion opens the store whose root is l at version ver: "v3" or a
// commit time for OCDBT, "branch.NAME", "tag.NAME" or a snapshot id for
// Icechunk. A store opened below a layer opens its version below that
// layer too; the served location, when it is a store, from its pipeline.
func (h *Handler) openVersion(ctx context.Context, l *layer, ver string) (*layer, error) {
	p := l.fsys.Pipeline()
	u, err := p[len(p)-1].WithVersion(ver)
	if err != nil {
		return nil, &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf("version %q", ver), err: err}
	}
	u.Path = "/"
	at := u.String()
	q := p[:len(p)-1].Append(u)
	key := "fs\x00" + q.String()
	if l.parent != nil {
		return h.openBelow(ctx, key, l.parent, l.name, func(open opener) (*layer, error) {
			return dirLayer(open, at)
		})
	}
	return h.layers.get(ctx, key, false, func(ctx context.Context) (*layer, error) {
		fsys, err := vfs.OpenFS(ctx, q.String(), h.opts)
		if err != nil {
			return nil, err
		}
		return &layer{fsys: fsys, closer: fsys}, nil
	})
}

// openContainer opens the file name of l as the directory its detected
// format holds, as the dataset it is (an image), or, for a compressed
// file of no container, as the folder that holds its decompressed file.
func (h *Handler) openContainer(ctx context.Context, l *layer, name string) (*layer, error) {
	pipeline := l.fsys.URL(name)
	return h.openBelow(ctx, "file\x00"+pipeline, l, name, func(open opener) (*layer, error) {
		fsys, f, err := open()
		if err != nil {
			return nil, err
		}
		if fsys != nil {
			return &layer{fsys: fsys, closer: fsys}, nil
		}
		// No format makes the file a directory: it is a dataset (an
		// image), or no container at all.
		notOne := &httpError{status: http.StatusNotFound, msg: pipeline + " is not a container or dataset that pipefs detects; open it without the trailing /",
			err: fmt.Errorf("%s: %w", pipeline, vfs.ErrUnknownFormat)}
		u, ok := h.datasetFormat(ctx, f)
		f.Close()
		if a := h.reg.Adapter(u.Scheme); a != nil && a.Stream {
			// A compressed file of no container: the folder that holds
			// its decompressed file.
			return dirLayer(open, u.String())
		}
		if !ok {
			return nil, notOne
		}
		fsys, f, err = open(u.String())
		if err != nil {
			return nil, err
		}
		if fsys != nil {
			fsys.Close()
			return nil, notOne
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		n := array.NodeOf(info)
		if n == nil {
			f.Close()
			return nil, notOne
		}
		return &layer{node: n, closer: f, url: f.URL()}, nil
	})
}

// datasetFormat detects the format of f, and reports whether it is one
// whose adapter reads a file and yields a dataset file (png:, an image).
func (h *Handler) datasetFormat(ctx context.Context, f *vfs.File) (vfs.SubURL, bool) {
	var b driver.Blob
	if !f.As(&b) {
		return vfs.SubURL{}, false
	}
	u, err := h.reg.Detect(ctx, b)
	if err != nil {
		return vfs.SubURL{}, false
	}
	base, yields, _ := vfs.SchemeKinds(u.Scheme)
	return u, base != vfs.KindDirectory && (yields == vfs.KindDataset || yields == vfs.KindUnknown)
}

// openDataset opens directory name of l, whose info is given, as the
// array or group it holds, or returns nil when it holds none.
func (h *Handler) openDataset(ctx context.Context, l *layer, name string, info fs.FileInfo) (*layer, error) {
	u, p, err := h.detectDir(ctx, l, "dataset\x00"+name, fmt.Sprint(info.ModTime().UnixNano()), name, true)
	if err != nil || p == nil {
		return nil, err
	}
	return h.openBelow(ctx, "fs\x00"+p.String(), l, name, func(open opener) (*layer, error) {
		d, err := dirLayer(open, u.String())
		if err != nil {
			return nil, err
		}
		info, err := d.fsys.Stat(".")
		if err == nil {
			if d.node = array.NodeOf(info); d.node == nil {
				err = fmt.Errorf("%s: %w: not an array or group", p, vfs.ErrUnknownFormat)
			}
		}
		if err != nil {
			d.fsys.Close()
			return nil, err
		}
		return d, nil
	})
}

// errRestart is what a request meets when a layer it reads through
// changed while it walked its path: it walks the path again, from the
// served location. It is the answer only when that keeps happening.
var errRestart = &httpError{status: http.StatusServiceUnavailable, msg: "what the path reads changed while it was being opened; try again"}
