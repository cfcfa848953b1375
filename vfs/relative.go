package vfs

import (
	"context"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// openState is what an opened pipeline knew at its final location: what
// a pipeline opened relative to it (FS.OpenFS) starts from.
type openState struct {
	versions []string // the fingerprints of the blobs read, oldest first
	durable  bool
	side     driver.Sidecars
	sideURL  string
}

// state returns what r knows at its final location.
func (r *result) state() openState {
	return openState{versions: slices.Clip(r.versions), durable: r.durable, side: r.side, sideURL: r.sideURL}
}

// newFS returns the FS of r, a pipeline opened to a directory.
func newFS(r *result, ctx context.Context, o *Options) *FS {
	return &FS{ctx: ctx, tree: r.loc.Tree, dir: clean(r.loc.Path), p: r.p, detected: r.detectedAt(), opts: o, res: r.res, state: r.state()}
}

// OpenFS opens the directory location that the file or directory name of
// f holds, through adapters (sub-URLs such as "zip:" or
// "pipefs.tar:dir/", appended in order) and then, with detection on, the
// format detected, as the package-level OpenFS opens
// f.URL(name)|adapters... It opens it relative to f: name is read from
// f's tree, so nothing of the pipeline up to f is opened again. The child
// shares what f's pipeline opened (its blobs, and with them the cache,
// the versions it was opened at, and its requests), and its Options:
// limits, the cache, sidecars. A nested archive stored in a remote one is
// read as ranges of the outer object, with no request to open anything.
//
// The child must be closed before f: closing it releases only what it
// opened. It uses f's context for I/O until WithContext changes it.
func (f *FS) OpenFS(name string, adapters ...string) (*FS, error) {
	r, err := f.openRelative(name, adapters, KindDirectory)
	if err != nil {
		return nil, err
	}
	return newFS(r, f.ctx, f.opts), nil
}

// OpenDetect is the package-level OpenDetect of f.URL(name)|adapters...,
// opened relative to f as OpenFS opens: the directory location that name
// holds, as an FS, or the file as written when no format makes it one.
func (f *FS) OpenDetect(name string, adapters ...string) (*FS, *File, error) {
	r, err := f.openRelative(name, adapters, kindDetect)
	if err != nil {
		return nil, nil, err
	}
	if r.loc.Blob == nil {
		return newFS(r, f.ctx, f.opts), nil, nil
	}
	return nil, fileOf(r, f.ctx, f.opts), nil
}

// openRelative opens name of f through adapters, as openPipeline opens
// the pipeline they make, asking for kind want.
func (f *FS) openRelative(name string, adapters []string, want Kind) (_ *result, err error) {
	if err := f.check("open", name); err != nil {
		return nil, err
	}
	ctx, o := f.ctx, f.opts
	if o == nil {
		o = new(Options)
	}
	reg := o.registry()
	lim := o.limits()
	p := f.urlOf(name)
	base := len(p)
	if len(adapters) > 0 {
		s := p.String() + "|" + strings.Join(adapters, "|")
		q, err := Parse(s)
		if err != nil {
			return nil, errorAt("open", s, SuggestScheme(err, o))
		}
		if len(q) <= base || q[:base].String() != p.String() {
			return nil, errorAt("open", s, &SyntaxError{Index: base, Msg: "the adapters change the pipeline they are appended to"})
		}
		p = q
	}
	if len(p) > lim.MaxDepth {
		return nil, errorAt("open", p.String(), stageErr(p, lim.MaxDepth, driver.Limitf("pipeline has %d sub-URLs, more than Limits.MaxDepth (%d)", len(p), lim.MaxDepth)))
	}
	// The sub-URLs that f's open detected stay detected in the child.
	written := len(p)
	if f.detected > 0 {
		written = f.detected
	}
	st := f.state
	r := &result{p: p, written: written, res: &resources{trace: newTrace(reg, written)},
		versions: slices.Clip(st.versions), durable: st.durable, side: st.side, sideURL: st.sideURL}
	defer func() {
		if err != nil {
			r.res.close(ctx)
			markDetected(err, p[:written], r.p)
			err = errorAt("open", p.String(), err)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	loc := driver.Location{Tree: f.tree, Path: f.full(name)}
	for i := base; i < len(r.p); i++ {
		if loc, err = r.openAdapter(ctx, reg, o, i, loc); err != nil {
			return nil, err
		}
	}
	if err := r.finish(ctx, reg, o, lim, loc, want); err != nil {
		return nil, err
	}
	return r, nil
}
