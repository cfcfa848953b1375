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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
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
	trace   trace // what Stages reports of the open (stage.go)
	// head is the blob that a pipeline opened relative to an FS
	// (FS.OpenFS) read first: opened from that FS's tree for its first
	// adapter, before it had a stage of its own.
	head driver.Blob
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

func (r *resources) track(loc driver.Location) {
	if loc.Tree != nil {
		r.add(loc.Tree)
	}
	if loc.Blob != nil {
		r.add(loc.Blob)
	}
}

// close closes every resource, innermost first, and returns the first
// error. ctx is the context of what is closed (an FS, a File, a failed
// open): a driver.ContextCloser's I/O follows it.
func (r *resources) close(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fs.ErrClosed
	}
	r.closed = true
	var first error
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := closeWith(ctx, r.closers[i]); err != nil && first == nil {
			first = err
		}
	}
	r.closers = nil
	return first
}

// closeWith closes c, with ctx when c is a driver.ContextCloser.
func closeWith(ctx context.Context, c io.Closer) error {
	if cc, ok := c.(driver.ContextCloser); ok {
		return cc.CloseContext(ctx)
	}
	return c.Close()
}

// result is an opened pipeline: its resolved pipeline (detected adapters
// written out), the final location, and what must be closed.
type result struct {
	p       Pipeline
	written int // how many sub-URLs of p the caller wrote; detection appended the rest
	loc     driver.Location
	info    fs.FileInfo // of the final location when already known
	res     *resources
	// versions are the fingerprints of the blobs adapters have read so
	// far, oldest first, for Env.Key.
	versions []string
	// durable is set when a version came from a blob's Fingerprint and
	// names bytes that outlive the process (see Env.DiskIndex).
	durable bool
	// side is the first blob read when it keeps sidecars, and sideURL
	// the sub-URLs it was read from (see Options.Sidecar).
	side    driver.Sidecars
	sideURL string
}

// detectedAt returns the index in r.p of the first sub-URL that format
// detection appended, 0 when it appended none.
func (r *result) detectedAt() int {
	if len(r.p) > r.written {
		return r.written
	}
	return 0
}

// clean returns the fs name of a Location path.
func clean(name string) string {
	if name == "" {
		return "."
	}
	return name
}

// openPipeline opens p stage by stage. want is KindAny, KindDirectory
// or kindDetect; when the final location is not of that kind and
// detection is on, registered formats are appended one at a time until it
// is. With kindDetect, a file that no format makes a directory is the
// answer, as written (see OpenDetect).
func openPipeline(ctx context.Context, p Pipeline, o *Options, want Kind) (_ *result, err error) {
	reg := o.registry()
	lim := o.limits()
	if err := reg.checkOptions(o); err != nil {
		return nil, err
	}
	if o == nil {
		o = new(Options)
	}
	if len(p) == 0 {
		return nil, &SyntaxError{Index: -1, Msg: "empty pipeline"}
	}
	if len(p) > lim.MaxDepth {
		return nil, stageErr(p, lim.MaxDepth, driver.Limitf("pipeline has %d sub-URLs, more than Limits.MaxDepth (%d)", len(p), lim.MaxDepth))
	}
	r := &result{p: p, written: len(p), res: &resources{trace: newTrace(reg, len(p))}}
	defer func() {
		if err != nil {
			r.res.close(ctx)
			markDetected(err, p, r.p)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := reg.root(p[0].Scheme)
	if err != nil {
		return nil, stageErr(p, 0, err)
	}
	scheme := root.Scheme
	if _, ok := o.Schemes[p[0].Scheme]; ok {
		scheme = p[0].Scheme // an entry of its own beside the root's (https beside http)
	}
	loc, err := root.Open(ctx, p[0], r.env("", scheme, o, lim))
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
	if err := r.finish(ctx, reg, o, lim, loc, want); err != nil {
		return nil, err
	}
	return r, nil
}

// finish settles the kind of loc, the location of the last sub-URL of
// r.p, detecting formats as openPipeline says, and makes the result its
// final location.
func (r *result) finish(ctx context.Context, reg *Registry, o *Options, lim Limits, loc driver.Location, want Kind) (err error) {
	detected := 0
	var isDir bool
	var plain *plainFile // with kindDetect: the file as written
	for {
		isDir, r.info, err = r.kindOf(ctx, &loc)
		if err != nil {
			return stageErr(r.p, len(r.p)-1, err)
		}
		if want == KindAny || (want == KindDirectory || want == kindDetect) == isDir {
			break
		}
		if want == kindDetect && plain == nil {
			plain = r.save(loc)
		}
		if last := r.p[len(r.p)-1]; !isDir && strings.HasSuffix(last.Path, "/") {
			// The path says directory: a file there is not a container
			// to detect but a mistake.
			return stageErr(r.p, len(r.p)-1, ErrNotDir)
		}
		if last := r.p[len(r.p)-1]; !isDir && !IsRootScheme(last.Scheme) {
			if _, yields, ok := SchemeKinds(last.Scheme); ok && yields == KindDataset {
				// A dataset's file (decoded pixels, an HDF5 dataset's
				// elements) holds no format to detect.
				if plain != nil {
					loc = r.restore(plain)
					break
				}
				return stageErr(r.p, len(r.p)-1, ErrNotDir)
			}
		}
		if o.NoDetect {
			if want == kindDetect {
				break // a file, as no detection was asked for
			}
			if sd, ok := r.streamDir(reg, loc); ok && want == KindDirectory {
				loc, isDir = sd, true
				break
			}
			return stageErr(r.p, len(r.p)-1, ErrNotDir)
		}
		if len(r.p) >= lim.MaxDepth {
			return stageErr(r.p, len(r.p)-1, driver.Limitf("format detection would exceed Limits.MaxDepth (%d)", lim.MaxDepth))
		}
		if detected++; detected > maxDetected {
			// Even with no depth limit: a stream that decompresses to
			// itself (a gzip quine) would be detected forever.
			return stageErr(r.p, len(r.p)-1, driver.Limitf("format detection appended %d adapters and found no end", maxDetected))
		}
		u, err := detectFile(ctx, reg, loc.Blob)
		if sd, ok := r.streamDir(reg, loc); ok && errors.Is(err, ErrUnknownFormat) && (want == KindDirectory || len(r.p) <= r.written) {
			// A decompressed stream of no container is a folder that
			// holds it: wherever a directory is wanted, and for
			// OpenDetect when the stream was written out.
			loc, isDir = sd, true
			break
		}
		if err != nil && plain != nil && errors.Is(err, ErrUnknownFormat) {
			loc = r.restore(plain)
			break
		}
		if err != nil {
			return stageErr(r.p, len(r.p)-1, err)
		}
		r.p = r.p.Append(u)
		if loc, err = r.openAdapter(ctx, reg, o, len(r.p)-1, loc); err != nil {
			return err
		}
	}
	if (want == KindDirectory || want == kindDetect && isDir) && !o.NoDetect && len(r.p) < lim.MaxDepth {
		// A directory that is a store (ocdbt, icechunk) opens as the
		// store's tree, unless an adapter already reads it.
		if err := r.detectStore(ctx, reg, o, &loc); err != nil {
			return err
		}
	}
	r.loc = loc
	r.res.settle()
	return nil
}

// detectStore appends the directory format that loc matches, if any.
func (r *result) detectStore(ctx context.Context, reg *Registry, o *Options, loc *driver.Location) error {
	if _, ok := loc.Tree.(*streamDir); ok {
		return nil
	}
	if last := r.p[len(r.p)-1]; !IsRootScheme(last.Scheme) {
		if base, _, ok := SchemeKinds(last.Scheme); ok && base == KindDirectory {
			return nil // the last adapter already reads a directory
		}
	}
	u, ok, err := reg.DetectDir(ctx, driver.SubTree(loc.Tree, clean(loc.Path)), false)
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
func (r *result) kindOf(ctx context.Context, loc *driver.Location) (isDir bool, info fs.FileInfo, err error) {
	if loc.Blob != nil {
		return false, loc.Blob.Stat(), nil
	}
	name := clean(loc.Path)
	info, err = loc.Tree.Stat(ctx, name)
	if err != nil {
		return false, nil, err
	}
	if info.IsDir() {
		r.res.yields(info, nil)
		return true, info, nil
	}
	b, err := loc.Tree.OpenBlob(ctx, name)
	if err != nil {
		return false, nil, err
	}
	r.res.add(b)
	r.res.yields(nil, b)
	*loc = driver.Location{Blob: b}
	return false, b.Stat(), nil
}

// env returns the Env of a driver registered under scheme, opened over
// the input that url names; the versions r holds are those of that input.
func (r *result) env(url, scheme string, o *Options, lim Limits) *Env {
	return &Env{URL: url, Key: r.key(url), Limits: lim, Cache: o.cache(), Options: o, scheme: o.Schemes[scheme],
		durable: url != "" && r.durable, side: r.side, sideURL: r.sideURL}
}

// read notes that an adapter reads blob b: its fingerprint joins the
// versions that Env.Key holds. A blob that gives none inherits the version
// of the blobs it was read from (an archive member, a decompressed
// stream); one read from none (the first blob, or a file of a directory
// tree) is known by its size and modification time. durable is whether
// the pipeline's root declared Root.Durable: only then do its versions
// outlive the process.
func (r *result) read(b driver.Blob, url string, durable bool) {
	var v string
	if f, ok := b.(driver.Fingerprinter); ok {
		v = f.Fingerprint()
		if v != "" && durable {
			r.durable = true
			if s, ok := b.(driver.Sidecars); ok && len(r.versions) == 0 && b.Stat().Size() >= sidecarMinSize {
				r.side, r.sideURL = s, url
			}
		}
	}
	if v == "" && len(r.versions) == 0 {
		info := b.Stat()
		v = "mtime " + info.ModTime().UTC().Format(time.RFC3339Nano)
		// The size of a stream known only once decoded is not asked for.
		if k, ok := info.(driver.SizeKnower); !ok || k.SizeKnown() {
			v += " size " + strconv.FormatInt(info.Size(), 10)
		}
	}
	if v != "" {
		r.versions = append(r.versions, v)
	}
}

// key returns the Env.Key of the input that url names, read from the blobs
// whose versions r holds.
func (r *result) key(url string) string {
	if url == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(url)
	for _, v := range r.versions {
		b.WriteByte(0)
		b.WriteString(strconv.Quote(v))
	}
	return b.String()
}

// openAdapter opens sub-URL i over loc, the location of sub-URL i-1.
func (r *result) openAdapter(ctx context.Context, reg *Registry, o *Options, i int, loc driver.Location) (driver.Location, error) {
	if err := ctx.Err(); err != nil {
		return driver.Location{}, err
	}
	u := r.p[i]
	a, err := reg.adapter(u.Scheme)
	if err != nil {
		return driver.Location{}, stageErr(r.p, i, err)
	}
	url := r.p[:i].String()
	var out driver.Location
	if a.OpenDir != nil {
		t, berr := r.tree(ctx, loc)
		if berr != nil {
			// The base does not have what the adapter needs: that is
			// the base's sub-URL failing.
			return driver.Location{}, stageErr(r.p, i-1, berr)
		}
		out, err = a.OpenDir(ctx, t, u, r.env(url, a.Scheme, o, o.limits()))
	} else {
		b, berr := r.blob(ctx, loc)
		if berr != nil {
			return driver.Location{}, stageErr(r.p, i-1, berr)
		}
		r.read(b, url, reg.durable(r.p[0].Scheme))
		out, err = a.OpenFile(ctx, b, u, r.env(url, a.Scheme, o, o.limits()))
	}
	if err != nil {
		return driver.Location{}, stageErr(r.p, i, err)
	}
	if out.Tree == nil && out.Blob == nil {
		return driver.Location{}, stageErr(r.p, i, fmt.Errorf("the %s adapter returned an empty location", a.Scheme))
	}
	r.res.track(out) // released by openPipeline on error
	if out.Tree != nil {
		if err := checkPath(clean(out.Path)); err != nil {
			return driver.Location{}, stageErr(r.p, i, err)
		}
	}
	r.res.stage(i, r.p, out)
	return out, nil
}

// blob returns the file loc names, for an adapter that reads a file.
func (r *result) blob(ctx context.Context, loc driver.Location) (driver.Blob, error) {
	if loc.Blob != nil {
		return loc.Blob, nil
	}
	b, err := loc.Tree.OpenBlob(ctx, clean(loc.Path))
	if err != nil {
		return nil, err
	}
	r.res.add(b)
	r.res.yields(nil, b)
	return b, nil
}

// tree returns the tree of the directory loc names, for an adapter that
// reads a directory.
func (r *result) tree(ctx context.Context, loc driver.Location) (driver.Tree, error) {
	if loc.Blob != nil {
		return nil, fmt.Errorf("%w: the next adapter reads a directory", ErrNotDir)
	}
	name := clean(loc.Path)
	info, err := loc.Tree.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%w: the next adapter reads a directory", ErrNotDir)
	}
	r.res.yields(info, nil)
	return driver.SubTree(loc.Tree, name), nil
}

// checkPath refuses a name in a tree that is not an io/fs name, saying why
// and, when cleaning makes it one, which name was meant.
func checkPath(name string) error {
	if fs.ValidPath(name) {
		return nil
	}
	c := path.Clean(name)
	switch {
	case c == ".." || strings.HasPrefix(c, "../"):
		return fmt.Errorf("%w: %q leaves the top of its tree", fs.ErrInvalid, name)
	case fs.ValidPath(c):
		return fmt.Errorf("%w: %q is not a clean path (no \".\", \"..\" or empty element); did you mean %q?", fs.ErrInvalid, name, c)
	}
	return fmt.Errorf("%w: %q is not a valid path (UTF-8, no \".\", \"..\" or empty element)", fs.ErrInvalid, name)
}

// errorAt returns err as the error of opening pipeline text s.
func errorAt(op, s string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == s {
		return err
	}
	return &fs.PathError{Op: op, Path: s, Err: err}
}
