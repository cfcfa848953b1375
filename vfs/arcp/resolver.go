package arcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"github.com/pipefs/pipefs/vfs"
)

// ErrGone is matched (with errors.Is) by the error of resolving an arcp
// URI whose authority a [Resolver] knew, but whose container was removed
// since: the draft's "Gone". It does not match fs.ErrNotExist, which is
// for authorities never registered and for paths the container lacks.
var ErrGone = errors.New("container no longer available")

// ErrRegistered is matched by the error of registering a container whose
// location-based authority is already registered.
var ErrRegistered = errors.New("container already registered")

// A Resolver resolves arcp URIs against the containers registered with
// it. The zero value is an empty Resolver ready to use. A Resolver is safe
// for concurrent use.
//
// Each container is registered under every authority of its [Identity].
// Two registered containers may share an ni authority (the same bytes at
// two locations); it then resolves to the one registered first while it
// is there. A removed container's authorities are remembered, so that
// resolving them fails with [ErrGone] rather than fs.ErrNotExist, until a
// container with that authority is registered again.
type Resolver struct {
	mu   sync.RWMutex
	live map[string][]*entry // by AuthorityKey, oldest first
	gone map[string]bool     // AuthorityKey of removed containers
}

// An entry is one registered container.
type entry struct {
	id    *Identity
	fsys  *vfs.FS
	owned bool // the Resolver opened fsys and closes it
}

// Add registers the container whose root directory fsys is (an FS opened
// on "file:/d/a.zip" or "file:/d/a.zip|zip:") and returns its identity;
// see [Identify]; o.VFS should be the options fsys was opened with, since
// hashing opens the container file again. The caller keeps ownership of
// fsys and must keep it open until it calls Remove. Registering a container whose location-based
// authority is registered already is an error matching [ErrRegistered].
func (r *Resolver) Add(ctx context.Context, fsys *vfs.FS, o *Options) (*Identity, error) {
	id, err := Identify(ctx, fsys.Pipeline(), o)
	if err != nil {
		return nil, err
	}
	if err := r.add(&entry{id: id, fsys: fsys}); err != nil {
		return nil, err
	}
	return id, nil
}

// AddPipeline opens the directory location that pipeline names with
// vfs.OpenFS (so a container file is opened through its detected format),
// registers it as Add does, and owns it: Remove and Close close it.
func (r *Resolver) AddPipeline(ctx context.Context, pipeline string, o *Options) (*Identity, error) {
	fsys, err := vfs.OpenFS(ctx, pipeline, o.vfs())
	if err != nil {
		return nil, err
	}
	id, err := Identify(ctx, fsys.Pipeline(), o)
	if err == nil {
		err = r.add(&entry{id: id, fsys: fsys, owned: true})
	}
	if err != nil {
		fsys.Close()
		return nil, err
	}
	return id, nil
}

func (r *Resolver) add(e *entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live == nil {
		r.live = make(map[string][]*entry)
		r.gone = make(map[string]bool)
	}
	if len(r.live[AuthorityKey(e.id.UUID)]) > 0 {
		return fmt.Errorf("arcp: %s (%s): %w; Remove it first", e.id.Container, e.id.UUID, ErrRegistered)
	}
	for _, a := range e.id.Authorities() {
		k := AuthorityKey(a)
		r.live[k] = append(r.live[k], e)
		delete(r.gone, k)
	}
	return nil
}

// Remove unregisters the container that id identifies, and closes its FS
// if the Resolver opened it. Its authorities then resolve to errors
// matching [ErrGone]. Removing a container that is not registered does
// nothing.
func (r *Resolver) Remove(id *Identity) error {
	r.mu.Lock()
	e := r.removeLocked(id)
	r.mu.Unlock()
	if e != nil && e.owned {
		return e.fsys.Close()
	}
	return nil
}

func (r *Resolver) removeLocked(id *Identity) *entry {
	var found *entry
	for _, a := range id.Authorities() {
		k := AuthorityKey(a)
		l := r.live[k]
		i := slices.IndexFunc(l, func(e *entry) bool { return e.id == id })
		if i < 0 {
			continue
		}
		found = l[i]
		l = slices.Delete(l, i, i+1)
		if len(l) == 0 {
			delete(r.live, k)
			r.gone[k] = true
		} else {
			r.live[k] = l
		}
	}
	return found
}

// Close removes every container, closing those the Resolver opened, and
// returns the first error.
func (r *Resolver) Close() error {
	r.mu.Lock()
	var owned []*entry
	seen := make(map[*entry]bool)
	for _, l := range r.live {
		for _, e := range l {
			if !seen[e] {
				seen[e] = true
				if e.owned {
					owned = append(owned, e)
				}
			}
		}
	}
	for e := range seen {
		r.removeLocked(e.id)
	}
	r.mu.Unlock()
	var first error
	for _, e := range owned {
		if err := e.fsys.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Lookup returns the identity of the container that authority identifies.
// An authority never registered is an error matching fs.ErrNotExist; one
// whose container was removed, [ErrGone].
func (r *Resolver) Lookup(authority string) (*Identity, error) {
	e, err := r.lookup(authority)
	if err != nil {
		return nil, err
	}
	return e.id, nil
}

func (r *Resolver) lookup(authority string) (*entry, error) {
	k := AuthorityKey(authority)
	r.mu.RLock()
	defer r.mu.RUnlock()
	if l := r.live[k]; len(l) > 0 {
		return l[0], nil
	}
	if r.gone[k] {
		return nil, fmt.Errorf("arcp: authority %s: %w: it was removed", authority, ErrGone)
	}
	return nil, fmt.Errorf("arcp: authority %s: %w: no registered container has it (register the container with Resolver.Add first)", authority, fs.ErrNotExist)
}

// Open opens the resource that the arcp URI uri names: a regular file, or
// a directory (a *vfs.File that implements fs.ReadDirFile), with ctx for
// its I/O. The path is normalised first (see [URI.Name]), so it never
// leaves its container. The query and fragment are ignored. Errors are
// *fs.PathError values with op "open" and uri as their path: a malformed
// URI matches [ErrSyntax] and fs.ErrInvalid, an unknown authority or a
// path the container lacks fs.ErrNotExist, a removed container [ErrGone];
// a path with a trailing "/" that names a regular file matches
// vfs.ErrNotDir.
func (r *Resolver) Open(ctx context.Context, uri string) (*vfs.File, error) {
	u, err := Parse(uri)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: uri, Err: err}
	}
	return r.OpenURI(ctx, u)
}

// OpenURI is Open for a parsed URI.
func (r *Resolver) OpenURI(ctx context.Context, u *URI) (*vfs.File, error) {
	f, err := r.open(ctx, u.Authority, u.Path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: u.String(), Err: err}
	}
	return f, nil
}

// open opens path (raw, as in a URI) in the container of authority.
func (r *Resolver) open(ctx context.Context, authority, path string) (*vfs.File, error) {
	name, err := (&URI{Authority: authority, Path: path}).Name()
	if err != nil {
		return nil, err
	}
	e, err := r.lookup(authority)
	if err != nil {
		return nil, err
	}
	f, err := e.fsys.WithContext(ctx).OpenFile(name)
	if err != nil {
		if errors.Is(err, fs.ErrClosed) {
			// Removed while this open was under way.
			return nil, fmt.Errorf("%w: %w", ErrGone, err)
		}
		return nil, err
	}
	if (&URI{Path: path}).IsDir() && path != "" && path != "/" {
		if info, err := f.Stat(); err == nil && !info.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a regular file, not a directory: %w", name, vfs.ErrNotDir)
		}
	}
	return f, nil
}
