package icechunkadapter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(NewAdapter(nil))
	vfs.RegisterFormat(&vfs.Format{
		Name:     "icechunk",
		Adapter:  "icechunk:",
		Input:    vfs.KindDirectory,
		MatchDir: MatchDir,
	})
}

// NewAdapter returns the "icechunk" adapter reading virtual chunks as o
// allows. With o nil (the default registry's adapter), the options come
// from the open's vfs.Options: Schemes["icechunk"] holding an *Options;
// without them virtual chunks are never read. A program may also register
// NewAdapter(o) in its own vfs.Registry.
func NewAdapter(o *Options) *vfs.Adapter {
	return &vfs.Adapter{
		Scheme:     "icechunk",
		Options:    (*Options)(nil),
		Extensions: []string{".icechunk"},
		OpenDir: func(ctx context.Context, base driver.Tree, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			var oo Options
			if o != nil {
				oo = *o
			} else if so := vfs.SchemeOptions[*Options](env); so != nil {
				oo = *so
			}
			if oo.Pipeline == nil {
				oo.Pipeline = env.Options
			}
			oo.env = env
			t, err := Open(ctx, base, u.Version(), &oo)
			if err != nil {
				return driver.Location{}, err
			}
			return driver.Location{Tree: t, Path: u.Key()}, nil
		},
	}
}

// MatchDir reports whether t is an Icechunk repository: it has a
// snapshots/ directory and either a refs/ directory (spec v1) or a repo
// file (spec v2). A store that cannot be listed (an HTTP server) cannot
// show directories, so there a repo file that starts with the Icechunk
// magic, or a refs/branch.main/ref.json file, is enough.
func MatchDir(ctx context.Context, t driver.Tree) (bool, error) {
	if ok, err := isDir(ctx, t, "snapshots"); err != nil {
		return false, err
	} else if !ok {
		if _, err := t.ReadDir(ctx, "."); !errors.Is(err, errors.ErrUnsupported) {
			return false, nil
		}
		return matchUnlistable(ctx, t)
	}
	if ok, err := isDir(ctx, t, "refs"); ok || err != nil {
		return ok, err
	}
	fi, err := t.Stat(ctx, "repo")
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil && fi.Mode().IsRegular(), err
}

// Options configure how a snapshot is read. A nil *Options means the
// defaults: virtual chunks are listed but never read.
type Options struct {
	// VirtualPrefixes are the URL prefixes whose virtual chunks may be
	// read, such as "s3://bucket/data/" or "file:///srv/nc/". A prefix
	// matches a URL that starts with it at a "/" boundary: "s3://b"
	// allows "s3://b/x" but not "s3://bx/y".
	VirtualPrefixes []string

	// Resolve opens the bytes of a virtual chunk: a blob of exactly
	// c.Length bytes. When nil, an allowed chunk is opened as the
	// one-sub-URL pipeline c.URL with Pipeline's options (so its root
	// scheme must be registered) and cut to its byte range; its
	// last-modified bound is checked against the object's ModTime, its
	// ETag is not.
	//
	// When VirtualPrefixes is empty and Resolve is set, every virtual
	// chunk is handed to Resolve, which is then the policy: it refuses a
	// URL by returning an error matching fs.ErrPermission.
	Resolve func(ctx context.Context, c VirtualChunk) (driver.Blob, error)

	// Pipeline holds the limits and the registry used for the repository
	// and for opening virtual chunk URLs. Nil means defaults.
	Pipeline *vfs.Options

	// env is the Env of the adapter that opened the repository, through
	// which snapshots and manifests are kept on disk; nil when Open is
	// called directly.
	env *vfs.Env
}

// A VirtualChunk is a chunk stored outside the repository: bytes
// [Offset, Offset+Length) of the object at URL.
type VirtualChunk struct {
	URL            string
	Offset, Length int64
	// ETag, if not empty, is the entity tag the object must still have
	// (Icechunk sends it as If-Match).
	ETag string
	// LastModified, if not zero, is a time the object must not have been
	// modified after (Icechunk sends it as If-Unmodified-Since).
	LastModified time.Time
}

// allows reports whether o lets the chunk at url be read.
func (o *Options) allows(url string) bool {
	if len(o.VirtualPrefixes) == 0 {
		return o.Resolve != nil
	}
	for _, p := range o.VirtualPrefixes {
		if p == "" || !strings.HasPrefix(url, p) {
			continue
		}
		if len(url) == len(p) || strings.HasSuffix(p, "/") || url[len(p)] == '/' {
			return true
		}
	}
	return false
}

// A Snapshot describes one commit of a repository. It is what
// Stat(".").Sys() returns for the root of a Tree, and what Log lists.
type Snapshot struct {
	ID       string    // 20-character Crockford base32 id
	ParentID string    // the parent's id, "" for the first snapshot (and for spec v2 snapshot files, which do not record it)
	Time     time.Time // when the snapshot was flushed (committed), UTC
	Message  string    // the commit message
}

// ChunkKind tells where a chunk's bytes are.
type ChunkKind uint8

// The kinds of chunks.
const (
	Inline  ChunkKind = 1 + iota // in the manifest itself
	Native                       // a byte range of a file in chunks/
	Virtual                      // a byte range of an object outside the repository
)

// String returns the kind's name: "inline", "native" or "virtual".
func (k ChunkKind) String() string {
	switch k {
	case Inline:
		return "inline"
	case Native:
		return "native"
	case Virtual:
		return "virtual"
	}
	return fmt.Sprintf("ChunkKind(%d)", uint8(k))
}

// A Chunk describes a chunk file of a Tree: Stat().Sys() of a chunk key
// returns a *Chunk.
type Chunk struct {
	Kind   ChunkKind
	Offset int64  // start in the chunk file or the virtual object
	Length int64  // number of bytes
	Object string // "chunks/<id>" for a native chunk, the URL of a virtual one
}

// Log returns the history of the snapshot that ref names in the
// repository whose directory is base, newest first: the snapshot, its
// parent, and so on to the repository's first snapshot. ref is "" (for
// branch.main), "branch.NAME", "tag.NAME" or a snapshot id, as in
// icechunk://REF/. o may be nil.
func Log(ctx context.Context, base driver.Tree, ref string, o *vfs.Options) ([]Snapshot, error) {
	r, err := openRepo(ctx, base, o, nil)
	if err != nil {
		return nil, err
	}
	id, err := r.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	return r.history(ctx, id)
}

// Tree is the Zarr v3 key space of one snapshot, a read-only driver.Tree:
// one zarr.json file per node and one file per existing chunk. It is safe
// for concurrent use. Close releases the chunk files it opened; it does
// not close base.
type Tree struct {
	repo *repo
	snap *snapshot
	opts Options
	lim  vfs.Limits

	mu        sync.Mutex
	closed    bool
	manifests map[id12]*manifestEntry
	files     map[id12]*fileEntry
}

var (
	_ driver.Tree = (*Tree)(nil)
	_ io.Closer   = (*Tree)(nil)
)

// manifestEntry and fileEntry are loaded once, under their own lock, so
// that concurrent readers wait for one load. A failed load is retried
// by the next caller (the error may be a cancelled context).
type manifestEntry struct {
	mu sync.Mutex
	m  *manifest
}

type fileEntry struct {
	mu sync.Mutex
	b  driver.Blob
}

// Open reads the snapshot that ref names (as in icechunk://REF/: "" for
// branch.main, "branch.NAME", "tag.NAME" or a snapshot id) in the
// repository whose directory is base, spec v1 or v2, and returns its key
// space. A ref that names nothing is an error matching fs.ErrNotExist; a
// pre-1.0 repository one matching ErrLegacyFormat. o may be nil.
func Open(ctx context.Context, base driver.Tree, ref string, o *Options) (*Tree, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	r, err := openRepo(ctx, base, opts.Pipeline, opts.env)
	if err != nil {
		return nil, err
	}
	id, err := r.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	s, err := r.readSnapshot(ctx, id, false)
	if err != nil {
		return nil, err
	}
	if s.info.ParentID == "" && r.info != nil {
		// Spec v2 snapshot files do not record their parent; the repo
		// file does.
		for _, rs := range r.info.snapshots {
			if rs.info.ID == s.info.ID {
				s.info.ParentID = rs.info.ParentID
			}
		}
	}
	return &Tree{
		repo:      r,
		snap:      s,
		opts:      opts,
		lim:       r.lim,
		manifests: map[id12]*manifestEntry{},
		files:     map[id12]*fileEntry{},
	}, nil
}

// Snapshot returns the snapshot t shows.
func (t *Tree) Snapshot() Snapshot { return t.snap.info }

// History returns the ancestry of t's snapshot, newest (itself) first.
func (t *Tree) History(ctx context.Context) ([]Snapshot, error) {
	return t.repo.history(ctx, mustID(t.snap.info.ID))
}

func mustID(s string) id12 {
	id, _ := parseID12(s)
	return id
}

// Close closes the chunk files t opened. Blobs already handed out stop
// working; the base tree is not closed.
func (t *Tree) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return fs.ErrClosed
	}
	t.closed = true
	var first error
	for _, id := range slices.SortedFunc(maps.Keys(t.files), func(a, b id12) int { return slices.Compare(a[:], b[:]) }) {
		e := t.files[id]
		e.mu.Lock()
		if c, ok := e.b.(io.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
		e.b = nil
		e.mu.Unlock()
	}
	t.manifests, t.files = nil, nil
	return first
}

func (t *Tree) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// manifest returns the decoded manifest id, loading it once.
func (t *Tree) manifest(ctx context.Context, id id12) (*manifest, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, fs.ErrClosed
	}
	e := t.manifests[id]
	if e == nil {
		e = &manifestEntry{}
		t.manifests[id] = e
	}
	t.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m != nil {
		return e.m, nil
	}
	name := "manifests/" + id.String()
	var m *manifest
	err := t.repo.readImmutable(ctx, name, func(data []byte) error {
		_, payload, err := decodeMetadata(name, data, fileManifest)
		if err != nil {
			return err
		}
		if m, err = parseManifest(name, payload); err != nil {
			return err
		}
		return checkManifestID(name, m, id)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, corruptf("snapshot %s refers to %s, which does not exist", t.snap.info.ID, name)
	}
	if err != nil {
		return nil, err
	}
	e.m = m
	return m, nil
}

// chunkFile returns chunks/<id>, opened once and shared by every chunk
// in it until t is closed.
func (t *Tree) chunkFile(ctx context.Context, id id12) (driver.Blob, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, fs.ErrClosed
	}
	e := t.files[id]
	if e == nil {
		e = &fileEntry{}
		t.files[id] = e
	}
	t.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.b != nil {
		return e.b, nil
	}
	name := "chunks/" + id.String()
	b, err := t.repo.base.OpenBlob(ctx, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, corruptf("snapshot %s refers to %s, which does not exist", t.snap.info.ID, name)
	}
	if err != nil {
		return nil, err
	}
	if t.isClosed() {
		// Close ran while we opened it: do not leak it.
		if c, ok := b.(io.Closer); ok {
			c.Close()
		}
		return nil, fs.ErrClosed
	}
	e.b = b
	return b, nil
}

// findNode returns the node at an absolute path, nil if there is none.
func (t *Tree) findNode(p string) *node {
	nodes := t.snap.nodes
	i, ok := slices.BinarySearchFunc(nodes, p, func(n *node, p string) int { return cmp.Compare(n.path, p) })
	if !ok {
		return nil
	}
	return nodes[i]
}

// hasDescendants reports whether some node lies below absolute path p.
func (t *Tree) hasDescendants(p string) bool {
	prefix := p + "/"
	if p == "/" {
		prefix = "/"
	}
	nodes := t.snap.nodes
	i, _ := slices.BinarySearchFunc(nodes, prefix, func(n *node, p string) int { return cmp.Compare(n.path, p) })
	for ; i < len(nodes); i++ {
		if isUnder(nodes[i].path, p) {
			return true
		}
		if !strings.HasPrefix(nodes[i].path, prefix) {
			return false
		}
	}
	return false
}

func corruptf(format string, args ...any) error { return driver.Corruptf(format, args...) }
func limitf(format string, args ...any) error   { return driver.Limitf(format, args...) }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// matchUnlistable is MatchDir over a store that cannot be listed: a repo
// file that starts with the Icechunk magic (spec v2), or the main branch's
// refs/branch.main/ref.json (spec v1).
func matchUnlistable(ctx context.Context, t driver.Tree) (bool, error) {
	b, err := t.OpenBlob(ctx, "repo")
	if err == nil {
		if c, ok := b.(io.Closer); ok {
			defer c.Close()
		}
		head := make([]byte, len(magic))
		n, err := b.ReadAt(ctx, head, 0)
		if n == len(head) && string(head) == magic {
			return true, nil
		}
		if err != nil && err != io.EOF {
			return false, err
		}
		return false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, driver.ErrIsDir) {
		return false, err
	}
	fi, err := t.Stat(ctx, "refs/branch.main/ref.json")
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil && fi.Mode().IsRegular(), err
}
