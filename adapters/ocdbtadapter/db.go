package ocdbtadapter

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// manifestName is the file that holds the manifest, and the detection
// signature.
const manifestName = "manifest.ocdbt"

// cacheBytes bounds the decoded nodes one database keeps in memory.
const cacheBytes = 32 << 20

// maxVisits bounds the nodes one operation (a lookup, a listing, a log)
// may read, so that a hostile tree whose nodes share children cannot make
// a listing run forever.
const maxVisits = 1 << 20

// maxWork bounds the node entries one B+tree walk may examine: a listing
// of a directory of Limits.MaxEntries (default 2^20) files examines about
// that many, so 2^26 leaves ample room while keeping a walk over a hostile
// tree to seconds.
const maxWork = 1 << 26

// A db is an opened database directory: its manifest, the data files read
// so far and a cache of decoded nodes. It is shared by everything opened
// from one manifest read and safe for concurrent use.
type db struct {
	base driver.Tree
	lim  vfs.Limits
	man  *manifest
	env  *vfs.Env // of the adapter, for vfs.Env.DiskObject; nil if none

	mu     sync.Mutex
	files  map[string]*dataHandle
	closed bool

	cache nodeCache
}

// A dataHandle is a data file, opened once on first use.
type dataHandle struct {
	once sync.Once
	blob driver.Blob
	err  error
}

// openDB reads and decodes the manifest of the database in base.
func openDB(ctx context.Context, base driver.Tree, o *vfs.Options, env *vfs.Env) (*db, error) {
	b, err := readWhole(ctx, base, manifestName)
	if err != nil {
		return nil, err
	}
	m, err := decodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifestName, err)
	}
	return &db{base: base, lim: o.EffectiveLimits(), man: m, env: env, files: make(map[string]*dataHandle)}, nil
}

// readWhole reads a small file of base whole, refusing one larger than
// maxEncodedBytes.
func readWhole(ctx context.Context, base driver.Tree, name string) ([]byte, error) {
	blob, err := base.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	if c, ok := blob.(io.Closer); ok {
		defer c.Close()
	}
	size := blob.Stat().Size()
	if size > maxEncodedBytes {
		return nil, driver.Limitf("%s is %d bytes, more than %d", name, size, maxEncodedBytes)
	}
	b := make([]byte, size)
	n, err := blob.ReadAt(ctx, b, 0)
	if n == len(b) && err == io.EOF {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// close closes the data files.
func (d *db) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var first error
	for _, h := range d.files {
		h.once.Do(func() { h.err = fs.ErrClosed })
		if c, ok := h.blob.(io.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	d.files = nil
	return first
}

// dataFile returns the blob of the named data file, opening it on first use.
func (d *db) dataFile(ctx context.Context, path string) (driver.Blob, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, fs.ErrClosed
	}
	h := d.files[path]
	if h == nil {
		h = new(dataHandle)
		d.files[path] = h
	}
	d.mu.Unlock()
	h.once.Do(func() {
		h.blob, h.err = d.base.OpenBlob(ctx, path)
		if h.err != nil {
			h.err = fmt.Errorf("data file %s: %w", path, h.err)
		}
	})
	if h.err != nil {
		// A failure caused by the caller's context must not stick.
		if errors.Is(h.err, context.Canceled) || errors.Is(h.err, context.DeadlineExceeded) {
			d.mu.Lock()
			if d.files != nil && d.files[path] == h {
				delete(d.files, path)
			}
			d.mu.Unlock()
		}
		return nil, h.err
	}
	return h.blob, nil
}

// readRef reads the bytes r locates.
func (d *db) readRef(ctx context.Context, r ref) ([]byte, error) {
	if r.length > maxEncodedBytes {
		return nil, driver.Limitf("node of %d bytes in %s exceeds %d", r.length, r.file.path, maxEncodedBytes)
	}
	blob, err := d.dataFile(ctx, r.file.path)
	if err != nil {
		return nil, err
	}
	if size := blob.Stat().Size(); uint64(size) < r.offset+r.length {
		return nil, driver.Corruptf("data file %s is %d bytes, a node ends at %d", r.file.path, size, r.offset+r.length)
	}
	b := make([]byte, r.length)
	n, err := blob.ReadAt(ctx, b, int64(r.offset))
	if n == len(b) && err == io.EOF {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", r.file.path, err)
	}
	return b, nil
}

// btreeNode returns the decoded B+tree node r locates, from the cache when
// it is there.
func (d *db) btreeNode(ctx context.Context, r ref, height uint8) (*btreeNode, error) {
	key := cacheKey{r.file.path, r.offset, r.length, 'b'}
	if v, ok := d.cache.get(key); ok {
		n := v.(*btreeNode)
		if n.height != height {
			return nil, driver.Corruptf("b+tree node at %s+%d: height %d, expected %d", r.file.path, r.offset, n.height, height)
		}
		return n, nil
	}
	var n *btreeNode
	err := d.readNode(ctx, r, func(b []byte) error {
		var err error
		if n, err = decodeBtreeNode(b, r, height); err != nil {
			return fmt.Errorf("%s at offset %d: %w", r.file.path, r.offset, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.cache.add(key, n, int64(r.length)*4)
	return n, nil
}

// versionNode returns the decoded version-tree node vr locates, and checks
// that it holds the generations vr says.
func (d *db) versionNode(ctx context.Context, vr versionNodeRef) (*versionNode, error) {
	key := cacheKey{vr.node.file.path, vr.node.offset, vr.node.length, 'v'}
	v, ok := d.cache.get(key)
	if !ok {
		var n *versionNode
		err := d.readNode(ctx, vr.node, func(b []byte) error {
			var err error
			if n, err = decodeVersionNode(b, vr.node, d.man.arityLog2, vr.height); err != nil {
				return fmt.Errorf("%s at offset %d: %w", vr.node.file.path, vr.node.offset, err)
			}
			return d.checkVersionNode(n, vr)
		})
		if err != nil {
			return nil, err
		}
		d.cache.add(key, n, int64(vr.node.length)*4)
		v = n
	}
	n := v.(*versionNode)
	if err := d.checkVersionNode(n, vr); err != nil {
		return nil, err
	}
	return n, nil
}

// checkVersionNode checks that the version-tree node n has the height and
// holds the generations its parent's entry vr says.
func (d *db) checkVersionNode(n *versionNode, vr versionNodeRef) error {
	if n.height != vr.height {
		return driver.Corruptf("version-tree node at %s+%d: height %d, expected %d", vr.node.file.path, vr.node.offset, n.height, vr.height)
	}
	first, last := n.span()
	if last != vr.gen || first < minGen(d.man.arityLog2, vr.height, vr.gen) {
		return driver.Corruptf("version-tree node at %s+%d holds generations %d..%d, its parent says %d..%d",
			vr.node.file.path, vr.node.offset, first, last, minGen(d.man.arityLog2, vr.height, vr.gen), vr.gen)
	}
	return nil
}

// span returns the first and last generation numbers the node names.
func (n *versionNode) span() (first, last uint64) {
	if n.height == 0 {
		return n.leaves[0].gen, n.leaves[len(n.leaves)-1].gen
	}
	return n.children[0].gen, n.children[len(n.children)-1].gen
}

// A query selects a version: by generation, or by commit time.
type query struct {
	byTime bool
	gen    uint64
	time   uint64 // ns since the epoch; with before, earlier than any
	before bool   // the time is before the epoch
}

// match reports whether g is the version q names, scanning leaf entries.
func (q query) pick(leaves []generation) (generation, bool) {
	if !q.byTime {
		for _, g := range leaves {
			if g.gen == q.gen {
				return g, true
			}
		}
		return generation{}, false
	}
	i := -1
	for j, g := range leaves {
		if !q.before && g.commitTime <= q.time {
			i = j
		}
	}
	if i < 0 {
		return generation{}, false
	}
	return leaves[i], true
}

// child returns the interior entry to descend into for q, given that its
// entries' children have height h.
func (q query) child(a uint8, entries []versionNodeRef) (versionNodeRef, bool) {
	if !q.byTime {
		for _, e := range entries {
			if e.gen >= q.gen {
				return e, minGen(a, e.height, e.gen) <= q.gen
			}
		}
		return versionNodeRef{}, false
	}
	i := -1
	for j, e := range entries {
		if !q.before && e.commitTime <= q.time {
			i = j
		}
	}
	if i < 0 {
		return versionNodeRef{}, false
	}
	return entries[i], true
}

// find returns the version q names, and false when there is none.
func (d *db) find(ctx context.Context, q query) (generation, bool, error) {
	m := d.man
	inl := m.inline
	useInline := q.gen >= inl[0].gen
	if q.byTime {
		useInline = !q.before && q.time >= inl[0].commitTime
	}
	if useInline {
		g, ok := q.pick(inl)
		return g, ok, nil
	}
	e, ok := q.child(m.arityLog2, m.nodes)
	// Heights strictly decrease on the way down (checked on decode), so
	// this loop ends after at most maxVersionHeight steps: a version tree
	// cannot hold a cycle.
	for ok {
		if err := ctx.Err(); err != nil {
			return generation{}, false, err
		}
		n, err := d.versionNode(ctx, e)
		if err != nil {
			return generation{}, false, err
		}
		if n.height == 0 {
			g, ok := q.pick(n.leaves)
			return g, ok, nil
		}
		e, ok = q.child(m.arityLog2, n.children)
	}
	return generation{}, false, nil
}

// walkVersions calls fn for every version, oldest first. It stops at the
// first error fn returns.
func (d *db) walkVersions(ctx context.Context, fn func(generation) error) error {
	visits := 0
	var walk func(e versionNodeRef) error
	walk = func(e versionNodeRef) error {
		if visits++; visits > maxVisits {
			return driver.Limitf("version tree has more than %d nodes", maxVisits)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := d.versionNode(ctx, e)
		if err != nil {
			return err
		}
		for _, g := range n.leaves {
			if err := fn(g); err != nil {
				return err
			}
		}
		for _, c := range n.children {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, e := range d.man.nodes {
		if err := walk(e); err != nil {
			return err
		}
	}
	for _, g := range d.man.inline {
		if err := fn(g); err != nil {
			return err
		}
	}
	return nil
}

// first returns the oldest version, reading the leftmost path of the
// version tree.
func (d *db) first(ctx context.Context) (generation, error) {
	if len(d.man.nodes) == 0 {
		return d.man.inline[0], nil
	}
	e := d.man.nodes[0]
	for {
		n, err := d.versionNode(ctx, e)
		if err != nil {
			return generation{}, err
		}
		if n.height == 0 {
			return n.leaves[0], nil
		}
		e = n.children[0]
	}
}

// A cacheKey names a decoded node: where it was read, and its type.
type cacheKey struct {
	path           string
	offset, length uint64
	typ            byte
}

// nodeCache is an LRU of decoded nodes bounded by an estimate of their
// size in bytes. Nodes are immutable, so a cached node is always right.
type nodeCache struct {
	mu    sync.Mutex
	lru   list.List // of *cacheEntry, most recent first
	index map[cacheKey]*list.Element
	size  int64
}

type cacheEntry struct {
	key  cacheKey
	val  any
	size int64
}

func (c *nodeCache) get(k cacheKey) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.index[k]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).val, true
}

func (c *nodeCache) add(k cacheKey, v any, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index == nil {
		c.index = make(map[cacheKey]*list.Element)
	}
	if _, ok := c.index[k]; ok || size > cacheBytes {
		return
	}
	c.index[k] = c.lru.PushFront(&cacheEntry{k, v, size})
	c.size += size
	for c.size > cacheBytes {
		e := c.lru.Back()
		ce := e.Value.(*cacheEntry)
		c.lru.Remove(e)
		delete(c.index, ce.key)
		c.size -= ce.size
	}
}
