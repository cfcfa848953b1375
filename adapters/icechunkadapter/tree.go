package icechunkadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// What a name of the key space is.
type targetKind uint8

const (
	tDir      targetKind = iota // a group, an array, or a directory implied by node paths
	tMeta                       // the zarr.json of a node
	tChunkDir                   // a directory of chunk keys (below an array)
	tChunk                      // a chunk key
)

// target is a resolved name.
type target struct {
	kind   targetKind
	name   string   // the fs name
	dir    string   // tDir: the absolute node path
	node   *node    // tMeta, tChunk, tChunkDir; tDir when the directory is a node
	coords []uint32 // tChunk: all coordinates; tChunkDir: the prefix
}

// arrayState is what an array learns lazily: its chunk key encoding, from
// its zarr.json, and the sorted index of its chunks, from its manifests.
type arrayState struct {
	encOnce sync.Once
	sep     byte // '/' or '.'
	v2      bool // "v2" encoding: no "c" prefix

	mu      sync.Mutex // guards the index; held while manifests load
	indexed bool
	entries []chunkEntry // sorted by coordinates, no duplicates
}

type chunkEntry struct {
	coords []uint32
	size   int64
}

// encoding returns n's chunk key encoding (Zarr v3 "chunk_key_encoding":
// "default" with separator "/" or ".", or "v2" with "." or "/"). Metadata
// that does not parse, or an unknown encoding, gives the default "/",
// which is the only one Icechunk itself writes chunks for.
func (n *node) encoding() (sep byte, v2 bool) {
	a := &n.arr
	a.encOnce.Do(func() {
		a.sep = '/'
		var md struct {
			Enc *struct {
				Name   string `json:"name"`
				Config struct {
					Separator *string `json:"separator"`
				} `json:"configuration"`
			} `json:"chunk_key_encoding"`
		}
		if json.Unmarshal(n.userData, &md) == nil && md.Enc != nil {
			sep := md.Enc.Config.Separator
			switch md.Enc.Name {
			case "default":
				if sep != nil && *sep == "." {
					a.sep = '.'
				}
			case "v2":
				a.v2, a.sep = true, '.'
				if sep != nil && *sep == "/" {
					a.sep = '/'
				}
			}
		}
	})
	return a.sep, a.v2
}

// chunkKey returns the key of the chunk at coords, relative to its array.
func (n *node) chunkKey(coords []uint32) string {
	sep, v2 := n.encoding()
	if len(coords) == 0 {
		if v2 {
			return "0"
		}
		return "c"
	}
	var b strings.Builder
	if !v2 {
		b.WriteString("c")
		b.WriteByte(sep)
	}
	for i, c := range coords {
		if i > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(strconv.FormatUint(uint64(c), 10))
	}
	return b.String()
}

// parseCoord parses a canonical decimal uint32 (no sign, no leading zero).
func parseCoord(s string) (uint32, bool) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 32)
	return uint32(v), err == nil
}

func parseCoords(segs []string) ([]uint32, bool) {
	out := make([]uint32, len(segs)) // len(segs) <= rank <= maxRank
	for i, s := range segs {
		c, ok := parseCoord(s)
		if !ok {
			return nil, false
		}
		out[i] = c
	}
	return out, true
}

// parseChunkName resolves rest, a name relative to array n's directory
// other than "zarr.json", as a chunk key (tChunk) or a directory of chunk
// keys (tChunkDir). ok is false when rest cannot be a chunk key.
func (n *node) parseChunkName(rest string) (kind targetKind, coords []uint32, ok bool) {
	sep, v2 := n.encoding()
	if sep == '.' {
		if strings.Contains(rest, "/") {
			return 0, nil, false
		}
		if n.rank == 0 {
			return tChunk, nil, rest == n.chunkKey(nil)
		}
		if !v2 {
			var found bool
			if rest, found = strings.CutPrefix(rest, "c."); !found {
				return 0, nil, false
			}
		}
		segs := strings.Split(rest, ".")
		if len(segs) != n.rank {
			return 0, nil, false
		}
		coords, ok = parseCoords(segs)
		return tChunk, coords, ok
	}
	segs := strings.Split(rest, "/")
	if n.rank == 0 {
		return tChunk, nil, rest == n.chunkKey(nil)
	}
	if !v2 {
		if segs[0] != "c" {
			return 0, nil, false
		}
		segs = segs[1:]
	}
	if len(segs) > n.rank {
		return 0, nil, false
	}
	if coords, ok = parseCoords(segs); !ok {
		return 0, nil, false
	}
	if len(coords) == n.rank {
		return tChunk, coords, true
	}
	return tChunkDir, coords, true
}

// resolve finds what name is. It returns an error matching
// fs.ErrNotExist when it is nothing.
func (t *Tree) resolve(ctx context.Context, op, name string) (target, error) {
	if !fs.ValidPath(name) {
		return target{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if t.isClosed() {
		return target{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrClosed}
	}
	notExist := &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	// The nearest array at or above name owns everything below it.
	abs := "/"
	if name != "." {
		abs += name
	}
	for p := abs; ; p = path.Dir(p) {
		if n := t.findNode(p); n != nil && n.array {
			rest := strings.TrimPrefix(strings.TrimPrefix(abs, p), "/")
			switch {
			case rest == "":
				return target{kind: tDir, name: name, dir: p, node: n}, nil
			case rest == "zarr.json":
				return target{kind: tMeta, name: name, node: n}, nil
			}
			kind, coords, ok := n.parseChunkName(rest)
			if !ok {
				return target{}, notExist
			}
			tg := target{kind: kind, name: name, node: n, coords: coords}
			if kind == tChunkDir {
				has, err := t.hasChunks(ctx, n, coords)
				if err != nil {
					return target{}, &fs.PathError{Op: op, Path: name, Err: err}
				}
				if !has {
					return target{}, notExist
				}
			}
			return tg, nil
		}
		if p == "/" {
			break
		}
	}
	if path.Base(abs) == "zarr.json" {
		if n := t.findNode(path.Dir(abs)); n != nil {
			return target{kind: tMeta, name: name, node: n}, nil
		}
		return target{}, notExist
	}
	n := t.findNode(abs)
	if n != nil || abs == "/" || t.hasDescendants(abs) {
		return target{kind: tDir, name: name, dir: abs, node: n}, nil
	}
	return target{}, notExist
}

// index returns the sorted chunks of array n, built once from all its
// manifests. Only refs inside their manifest's extents count.
func (t *Tree) index(ctx context.Context, n *node) ([]chunkEntry, error) {
	a := &n.arr
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.indexed {
		return a.entries, nil
	}
	var entries []chunkEntry
	var buf [maxRank]uint32
	for i := range n.mrefs {
		mr := &n.mrefs[i]
		m, err := t.manifest(ctx, mr.id)
		if err != nil {
			return nil, err
		}
		refs, ok, err := m.refs(n.id)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for j := range refs.n {
			if j%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			coords := m.index(refs, j, buf[:0])
			if m.f.err != nil {
				return nil, m.f.err
			}
			if len(coords) != n.rank {
				return nil, corruptf("%s: chunk of array %q has %d coordinates, want %d", m.f.name, n.path, len(coords), n.rank)
			}
			if !mr.contains(coords) {
				continue
			}
			// Every entry costs about 40+4*rank bytes: MaxEntries bounds
			// the index of one array.
			if len(entries) >= t.lim.MaxEntries {
				return nil, limitf("array %q has more than Limits.MaxEntries (%d) chunks", n.path, t.lim.MaxEntries)
			}
			size, err := m.size(refs, j)
			if err != nil {
				return nil, err
			}
			entries = append(entries, chunkEntry{slices.Clone(coords), size})
		}
	}
	slices.SortFunc(entries, func(a, b chunkEntry) int { return slices.Compare(a.coords, b.coords) })
	entries = slices.CompactFunc(entries, func(a, b chunkEntry) bool { return slices.Equal(a.coords, b.coords) })
	a.entries, a.indexed = entries, true
	return entries, nil
}

// prefixRange returns the entries whose coordinates start with prefix.
func prefixRange(entries []chunkEntry, prefix []uint32) []chunkEntry {
	i, _ := slices.BinarySearchFunc(entries, prefix, func(e chunkEntry, p []uint32) int { return slices.Compare(e.coords, p) })
	j := i
	for j < len(entries) && hasPrefix(entries[j].coords, prefix) {
		j++
	}
	return entries[i:j]
}

func hasPrefix(c, prefix []uint32) bool {
	return len(c) >= len(prefix) && slices.Equal(c[:len(prefix)], prefix)
}

// hasChunks reports whether array n has a chunk whose coordinates start
// with prefix.
func (t *Tree) hasChunks(ctx context.Context, n *node, prefix []uint32) (bool, error) {
	entries, err := t.index(ctx, n)
	if err != nil {
		return false, err
	}
	return len(prefixRange(entries, prefix)) > 0, nil
}

// lookup finds the chunk ref of array n at coords: in the manifest whose
// extents hold them, by binary search. ok is false when there is none.
func (t *Tree) lookup(ctx context.Context, n *node, coords []uint32) (c chunkRef, ok bool, err error) {
	for i := range n.mrefs {
		mr := &n.mrefs[i]
		if !mr.contains(coords) {
			continue
		}
		m, err := t.manifest(ctx, mr.id)
		if err != nil {
			return c, false, err
		}
		refs, found, err := m.refs(n.id)
		if err != nil || !found {
			return c, false, err
		}
		j, found, err := m.find(refs, coords)
		if err != nil || !found {
			return c, false, err
		}
		c, err = m.chunk(refs, j)
		return c, err == nil, err
	}
	return c, false, nil
}

// size returns the number of bytes of chunk ref j, without decoding a
// virtual chunk's location.
func (m *manifest) size(refs vector, j int) (int64, error) {
	f := m.f
	rt := f.elemTable(refs, j)
	if f.field(rt, crChunkID, sizeID12) < 0 && f.field(rt, crLocation, 4) < 0 && f.field(rt, crCompressedLocation, 4) < 0 {
		if b, ok := f.bytes(rt, crInline); ok {
			return int64(len(b)), f.err
		}
	}
	c := f.uint64(rt, crLength, 0)
	if f.err == nil && c > 1<<62 {
		f.fail("chunk length %d", c)
	}
	return int64(c), f.err
}

func (t *Tree) dirInfo(name string) *driver.FileInfo {
	fi := &driver.FileInfo{FName: path.Base(name), FMode: fs.ModeDir | 0o555, FModTime: t.snap.info.Time}
	if name == "." {
		info := t.snap.info
		fi.FSys = &info
	}
	return fi
}

func (t *Tree) fileInfo(name string, size int64, sys any) *driver.FileInfo {
	return &driver.FileInfo{FName: path.Base(name), FSize: size, FMode: 0o444, FModTime: t.snap.info.Time, FSys: sys}
}

func (t *Tree) chunkInfo(name string, c *chunkRef) *driver.FileInfo {
	ch := &Chunk{Kind: c.kind, Offset: c.offset, Length: c.size()}
	switch c.kind {
	case Native:
		ch.Object = "chunks/" + c.chunkID.String()
	case Virtual:
		ch.Object = c.location
	}
	return t.fileInfo(name, c.size(), ch)
}

// Stat describes name. The root's Sys is a *Snapshot, a chunk's a *Chunk.
func (t *Tree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	tg, err := t.resolve(ctx, "stat", name)
	if err != nil {
		return nil, err
	}
	switch tg.kind {
	case tMeta:
		return t.fileInfo(name, int64(len(tg.node.userData)), nil), nil
	case tChunk:
		c, ok, err := t.lookup(ctx, tg.node, tg.coords)
		if err != nil {
			return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		if !ok {
			return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
		}
		return t.chunkInfo(name, &c), nil
	}
	return t.dirInfo(name), nil
}

// ReadDir lists the directory name, sorted by name.
func (t *Tree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	tg, err := t.resolve(ctx, "readdir", name)
	if err != nil {
		return nil, err
	}
	var out []fs.DirEntry
	fail := func(err error) ([]fs.DirEntry, error) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	join := func(base string) string {
		if name == "." {
			return base
		}
		return name + "/" + base
	}
	switch tg.kind {
	case tMeta, tChunk:
		return fail(driver.ErrNotDir)
	case tChunkDir:
		entries, err := t.index(ctx, tg.node)
		if err != nil {
			return fail(err)
		}
		out = t.listChunks(tg.node, entries, tg.coords, join)
	case tDir:
		if tg.node != nil {
			out = append(out, t.fileInfo("zarr.json", int64(len(tg.node.userData)), nil))
		}
		if tg.node != nil && tg.node.array {
			entries, err := t.index(ctx, tg.node)
			if err != nil {
				return fail(err)
			}
			n := tg.node
			sep, v2 := n.encoding()
			switch {
			case len(entries) == 0:
			case n.rank == 0 || sep == '.':
				for _, e := range entries {
					out = append(out, t.fileInfo(n.chunkKey(e.coords), e.size, nil))
				}
			case v2:
				out = append(out, t.listChunks(n, entries, nil, join)...)
			default:
				out = append(out, t.dirInfo(join("c")))
			}
			break
		}
		out = append(out, t.childDirs(tg.dir, join)...)
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// listChunks lists the chunk directory of array n at prefix: the distinct
// next coordinates, files at the last level and directories above it.
func (t *Tree) listChunks(n *node, entries []chunkEntry, prefix []uint32, join func(string) string) []fs.DirEntry {
	var out []fs.DirEntry
	k := len(prefix)
	last := k+1 == n.rank
	for _, e := range prefixRange(entries, prefix) {
		base := strconv.FormatUint(uint64(e.coords[k]), 10)
		if len(out) > 0 && out[len(out)-1].Name() == base {
			continue
		}
		if last {
			out = append(out, t.fileInfo(base, e.size, nil))
		} else {
			out = append(out, t.dirInfo(join(base)))
		}
	}
	return out
}

// childDirs lists the nodes and implied directories just below the
// absolute node path dir.
func (t *Tree) childDirs(dir string, join func(string) string) []fs.DirEntry {
	prefix := dir + "/"
	if dir == "/" {
		prefix = "/"
	}
	var out []fs.DirEntry
	nodes := t.snap.nodes
	i, _ := slices.BinarySearchFunc(nodes, prefix, func(n *node, p string) int { return strings.Compare(n.path, p) })
	seen := ""
	for ; i < len(nodes) && strings.HasPrefix(nodes[i].path, prefix); i++ {
		rest := nodes[i].path[len(prefix):]
		if rest == "" {
			continue
		}
		child, _, _ := strings.Cut(rest, "/")
		if child == seen {
			continue
		}
		seen = child
		out = append(out, t.dirInfo(join(child)))
	}
	return out
}

// OpenBlob opens the file name: a zarr.json or a chunk. A virtual chunk
// opens only when the Options allow its URL, else the error names the URL
// and matches fs.ErrPermission.
func (t *Tree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	tg, err := t.resolve(ctx, "open", name)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (driver.Blob, error) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	switch tg.kind {
	case tMeta:
		return driver.BytesBlob(tg.node.userData, t.fileInfo(name, int64(len(tg.node.userData)), nil)), nil
	case tChunk:
	default:
		return fail(driver.ErrIsDir)
	}
	c, ok, err := t.lookup(ctx, tg.node, tg.coords)
	if err != nil {
		return fail(err)
	}
	if !ok {
		return fail(fs.ErrNotExist)
	}
	info := t.chunkInfo(name, &c)
	switch c.kind {
	case Inline:
		return driver.BytesBlob(c.inline, info), nil
	case Native:
		f, err := t.chunkFile(ctx, c.chunkID)
		if err != nil {
			return fail(err)
		}
		if size := f.Stat().Size(); c.offset+c.length > size {
			return fail(corruptf("chunk [%d, %d) of chunks/%s, which has %d bytes", c.offset, c.offset+c.length, c.chunkID, size))
		}
		return driver.SectionBlob(f, c.offset, c.length, info), nil
	}
	vc := VirtualChunk{URL: c.location, Offset: c.offset, Length: c.length, ETag: c.etag}
	if c.modified != 0 {
		vc.LastModified = unixTime(c.modified)
	}
	if !t.opts.allows(vc.URL) {
		return fail(fmt.Errorf("virtual chunk at %q (bytes %d-%d) is outside the repository; reading it needs icechunkadapter.Options.VirtualPrefixes or Resolve: %w",
			vc.URL, vc.Offset, vc.Offset+vc.Length, fs.ErrPermission))
	}
	return &virtualBlob{opts: &t.opts, c: vc, info: info}, nil
}

// virtualBlob reads a virtual chunk, opening its target on first use.
type virtualBlob struct {
	opts *Options
	c    VirtualChunk
	info fs.FileInfo

	mu     sync.Mutex
	b      driver.Blob
	closer io.Closer
	closed bool
}

func (v *virtualBlob) Stat() fs.FileInfo { return v.info }

func (v *virtualBlob) open(ctx context.Context) (driver.Blob, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil, fs.ErrClosed
	}
	if v.b != nil {
		return v.b, nil
	}
	var err error
	if v.opts.Resolve != nil {
		v.b, err = v.opts.Resolve(ctx, v.c)
		if err != nil {
			return nil, fmt.Errorf("virtual chunk at %q: %w", v.c.URL, err)
		}
		if c, ok := v.b.(io.Closer); ok {
			v.closer = c
		}
		if got := v.b.Stat().Size(); got != v.c.Length {
			v.closeLocked()
			return nil, corruptf("virtual chunk at %q: the resolver gave %d bytes, want %d", v.c.URL, got, v.c.Length)
		}
		return v.b, nil
	}
	p, err := vfs.Parse(v.c.URL)
	if err != nil || len(p) != 1 {
		return nil, fmt.Errorf("virtual chunk location %q is not a plain URL: %w", v.c.URL, fs.ErrInvalid)
	}
	var o vfs.Options
	if v.opts.Pipeline != nil {
		o = *v.opts.Pipeline
	}
	o.NoDetect = true
	f, err := vfs.Open(ctx, v.c.URL, &o)
	if err != nil {
		return nil, fmt.Errorf("virtual chunk at %q: %w", v.c.URL, err)
	}
	v.closer = f
	fi, _ := f.Stat()
	if v.c.Offset+v.c.Length > f.Size() {
		v.closeLocked()
		return nil, corruptf("virtual chunk [%d, %d) of %q, which has %d bytes", v.c.Offset, v.c.Offset+v.c.Length, v.c.URL, f.Size())
	}
	if !v.c.LastModified.IsZero() && fi != nil && fi.ModTime().After(v.c.LastModified) {
		v.closeLocked()
		return nil, fmt.Errorf("virtual chunk at %q: modified at %v, after %v: %w", v.c.URL, fi.ModTime(), v.c.LastModified, driver.ErrModified)
	}
	var fb driver.Blob
	if !f.As(&fb) {
		v.closeLocked()
		return nil, fmt.Errorf("virtual chunk at %q: not a regular file: %w", v.c.URL, fs.ErrInvalid)
	}
	v.b = driver.SectionBlob(fb, v.c.Offset, v.c.Length, v.info)
	return v.b, nil
}

func (v *virtualBlob) closeLocked() error {
	var err error
	if v.closer != nil {
		err = v.closer.Close()
	}
	v.b, v.closer = nil, nil
	return err
}

// ReadAt reads the chunk, opening its target first.
func (v *virtualBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	b, err := v.open(ctx)
	if err != nil {
		return 0, &fs.PathError{Op: "read", Path: v.info.Name(), Err: err}
	}
	return b.ReadAt(ctx, p, off)
}

// Close closes the target, if it was opened.
func (v *virtualBlob) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return fs.ErrClosed
	}
	v.closed = true
	return v.closeLocked()
}

var _ driver.Versioned = (*Tree)(nil)

// Versions returns the ancestry of t's snapshot, oldest first (the reverse
// of History), for driver.Versioned: the ID of a version is the snapshot
// id, which opens it as "icechunk://ID/", and Keys is -1, since a snapshot
// does not record a key count.
func (t *Tree) Versions(ctx context.Context) ([]driver.Version, error) {
	snaps, err := t.History(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]driver.Version, len(snaps))
	for i, s := range snaps {
		out[len(snaps)-1-i] = driver.Version{ID: s.ID, Time: s.Time, Keys: -1, Message: s.Message}
	}
	return out, nil
}
