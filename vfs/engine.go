package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// maxDetected bounds the adapters that format detection appends to one
// pipeline, whatever Limits.MaxDepth says.
const maxDetected = 64

// resources are what an opened pipeline holds: the trees and blobs of its
// stages, closed in reverse order when the owner is closed.
type resources struct {
	mu      sync.Mutex
	closers []io.Closer
	closed  bool
	stages  []stageRef
}

// add adds v to what must be closed, when v is an io.Closer not added yet
// (an adapter may return the blob or tree it was given).
func (r *resources) add(v any) {
	c, ok := v.(io.Closer)
	if !ok || c == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if reflect.ValueOf(c).Comparable() && slices.Contains(r.closers, c) {
		return
	}
	r.closers = append(r.closers, c)
}

func (r *resources) track(loc Location) {
	if loc.Tree != nil {
		r.add(loc.Tree)
	}
	if loc.Blob != nil {
		r.add(loc.Blob)
	}
}

// close closes every resource, innermost first, and returns the first error.
func (r *resources) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fs.ErrClosed
	}
	r.closed = true
	var first error
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := r.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	r.closers = nil
	return first
}

// result is an opened pipeline: its resolved pipeline (detected adapters
// written out), the final location, and what must be closed.
type result struct {
	p    Pipeline
	loc  Location
	info fs.FileInfo // of the final location when already known
	res  *resources
}

// clean returns the fs name of a Location path.
func clean(name string) string {
	if name == "" {
		return "."
	}
	return name
}

// openPipeline opens p stage by stage. want is KindFile, KindDirectory or
// KindAny; when the final location is not of that kind and detection is
// on, registered formats are appended one at a time until it is.
func openPipeline(ctx context.Context, p Pipeline, o *Options, want Kind) (_ *result, err error) {
	reg := o.registry()
	lim := o.limits()
	if len(p) == 0 {
		return nil, &SyntaxError{Index: -1, Msg: "empty pipeline"}
	}
	if len(p) > lim.MaxDepth {
		return nil, stageErr(p, lim.MaxDepth, Limitf("pipeline has %d sub-URLs, more than Limits.MaxDepth (%d)", len(p), lim.MaxDepth))
	}
	r := &result{p: p, res: new(resources)}
	defer func() {
		if err != nil {
			r.res.close()
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := reg.root(p[0].Scheme)
	if err != nil {
		return nil, stageErr(p, 0, err)
	}
	loc, err := root.Open(ctx, p[0], o)
	if err != nil {
		return nil, stageErr(p, 0, err)
	}
	r.res.track(loc)
	r.res.stage(0, p, loc)
	for i := 1; i < len(r.p); i++ {
		if loc, err = r.openAdapter(ctx, reg, o, i, loc); err != nil {
			return nil, err
		}
	}
	// The final location: settle its kind, detect formats as needed.
	detected := 0
	for {
		var isDir bool
		isDir, r.info, err = r.kindOf(ctx, &loc)
		if err != nil {
			return nil, stageErr(r.p, len(r.p)-1, err)
		}
		if want == KindAny || (want == KindDirectory) == isDir {
			break
		}
		if last := r.p[len(r.p)-1]; !isDir && strings.HasSuffix(last.Path, "/") {
			// The path says directory: a file there is not a container
			// to detect but a mistake.
			return nil, stageErr(r.p, len(r.p)-1, ErrNotDir)
		}
		if o != nil && o.NoDetect || (want == KindFile && isDir) {
			if isDir {
				return nil, stageErr(r.p, len(r.p)-1, ErrIsDir)
			}
			return nil, stageErr(r.p, len(r.p)-1, ErrNotDir)
		}
		if len(r.p) >= lim.MaxDepth {
			return nil, stageErr(r.p, len(r.p)-1, Limitf("format detection would exceed Limits.MaxDepth (%d)", lim.MaxDepth))
		}
		if detected++; detected > maxDetected {
			// Even with no depth limit: a stream that decompresses to
			// itself (a gzip quine) would be detected forever.
			return nil, stageErr(r.p, len(r.p)-1, Limitf("format detection appended %d adapters and found no end", maxDetected))
		}
		u, err := detectFile(ctx, reg, loc.Blob)
		if err != nil {
			return nil, stageErr(r.p, len(r.p)-1, err)
		}
		r.p = r.p.Append(u)
		if loc, err = r.openAdapter(ctx, reg, o, len(r.p)-1, loc); err != nil {
			return nil, err
		}
	}
	if want == KindDirectory && (o == nil || !o.NoDetect) && len(r.p) < lim.MaxDepth {
		// A directory that is a store (ocdbt, icechunk) opens as the
		// store's tree, unless an adapter already reads it.
		if err := r.detectStore(ctx, reg, o, &loc); err != nil {
			return nil, err
		}
	}
	r.loc = loc
	return r, nil
}

// detectStore appends the directory format that loc matches, if any.
func (r *result) detectStore(ctx context.Context, reg *Registry, o *Options, loc *Location) error {
	if last := r.p[len(r.p)-1]; !IsRootScheme(last.Scheme) {
		if base, _, ok := SchemeKinds(last.Scheme); ok && base == KindDirectory {
			return nil // the last adapter already reads a directory
		}
	}
	u, ok, err := reg.DetectDir(ctx, SubTree(loc.Tree, clean(loc.Path)), false)
	if err != nil {
		return stageErr(r.p, len(r.p)-1, err)
	}
	if !ok {
		return nil
	}
	r.p = r.p.Append(u)
	out, err := r.openAdapter(ctx, reg, o, len(r.p)-1, *loc)
	if err != nil {
		return err
	}
	isDir, info, err := r.kindOf(ctx, &out)
	if err != nil {
		return stageErr(r.p, len(r.p)-1, err)
	}
	if !isDir {
		return stageErr(r.p, len(r.p)-1, ErrNotDir)
	}
	r.info, *loc = info, out
	return nil
}

// kindOf reports whether loc is a directory. A tree location that names a
// file is turned into a blob location, so that the caller can read it.
func (r *result) kindOf(ctx context.Context, loc *Location) (isDir bool, info fs.FileInfo, err error) {
	if loc.Blob != nil {
		return false, loc.Blob.Stat(), nil
	}
	name := clean(loc.Path)
	info, err = loc.Tree.Stat(ctx, name)
	if err != nil {
		return false, nil, err
	}
	if info.IsDir() {
		return true, info, nil
	}
	b, err := loc.Tree.OpenBlob(ctx, name)
	if err != nil {
		return false, nil, err
	}
	r.res.add(b)
	*loc = Location{Blob: b}
	return false, b.Stat(), nil
}

// openAdapter opens sub-URL i over loc, the location of sub-URL i-1.
func (r *result) openAdapter(ctx context.Context, reg *Registry, o *Options, i int, loc Location) (Location, error) {
	if err := ctx.Err(); err != nil {
		return Location{}, err
	}
	u := r.p[i]
	a, err := reg.adapter(u.Scheme)
	if err != nil {
		return Location{}, stageErr(r.p, i, err)
	}
	in, err := r.input(ctx, loc, a.Input)
	if err != nil {
		// The base does not have what the adapter needs: that is the
		// base's sub-URL failing.
		return Location{}, stageErr(r.p, i-1, err)
	}
	in.URL = r.p[:i].String()
	out, err := a.Open(ctx, in, u, o)
	if err != nil {
		return Location{}, stageErr(r.p, i, err)
	}
	r.res.track(out)
	r.res.stage(i, r.p, out)
	return out, nil
}

// input turns loc into what an adapter reading kind wants: a blob, or a
// tree rooted at the named directory.
func (r *result) input(ctx context.Context, loc Location, kind Kind) (Location, error) {
	switch kind {
	case KindFile:
		if loc.Blob != nil {
			return loc, nil
		}
		name := clean(loc.Path)
		b, err := loc.Tree.OpenBlob(ctx, name)
		if err != nil {
			return Location{}, err
		}
		r.res.add(b)
		return Location{Blob: b}, nil
	default:
		if loc.Blob != nil {
			return Location{}, fmt.Errorf("%w: the next adapter reads a directory", ErrNotDir)
		}
		name := clean(loc.Path)
		info, err := loc.Tree.Stat(ctx, name)
		if err != nil {
			return Location{}, err
		}
		if !info.IsDir() {
			return Location{}, fmt.Errorf("%w: the next adapter reads a directory", ErrNotDir)
		}
		return Location{Tree: SubTree(loc.Tree, name), Path: "."}, nil
	}
}

// SubTree returns the tree of directory dir in t. Names passed to it are
// joined to dir; t is not owned.
func SubTree(t Tree, dir string) Tree {
	if dir == "." || dir == "" {
		return t
	}
	if s, ok := t.(*subTree); ok {
		return &subTree{s.t, path.Join(s.dir, dir)}
	}
	return &subTree{t, dir}
}

type subTree struct {
	t   Tree
	dir string
}

func (s *subTree) full(name string) string {
	if name == "." {
		return s.dir
	}
	return s.dir + "/" + name
}

func (s *subTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	return s.t.Stat(ctx, s.full(name))
}

func (s *subTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return s.t.ReadDir(ctx, s.full(name))
}

func (s *subTree) OpenBlob(ctx context.Context, name string) (Blob, error) {
	return s.t.OpenBlob(ctx, s.full(name))
}

// errorAt returns err as the error of opening pipeline text s.
func errorAt(op, s string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == s {
		return err
	}
	return &fs.PathError{Op: op, Path: s, Err: err}
}
