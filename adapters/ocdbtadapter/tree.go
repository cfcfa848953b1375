package ocdbtadapter

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Tree is the read-only tree of the keys of one version of a database. It
// implements driver.Tree and io.Closer, and is safe for concurrent use.
type Tree struct {
	db  *db
	ver Version
	gen generation
}

var (
	_ driver.Tree      = (*Tree)(nil)
	_ driver.Versioned = (*Tree)(nil)
)

// Version describes one version (generation) of a database. It is what
// Stat(".").Sys() returns for the root of a tree, and what Log lists.
type Version struct {
	// Generation is the version's number, from 1 for the first commit.
	Generation uint64
	// CommitTime is when the version was committed, with nanosecond
	// precision, in UTC.
	CommitTime time.Time
	// NumKeys is the number of keys in the version, as the database
	// records it.
	NumKeys uint64
}

// Name returns the version's name in a pipeline: "v" and the generation,
// as in ocdbt://v3/.
func (v Version) Name() string { return fmt.Sprintf("v%d", v.Generation) }

// TimeText returns the commit time as it is written in a pipeline
// (ocdbt://2025-01-30T21:32:58.4359968Z/): RFC 3339 in UTC, with the
// trailing zeros of the fraction dropped.
func (v Version) TimeText() string { return formatTime(v.CommitTime) }

// String returns the name and the commit time, as in
// "v3 2025-01-30T21:32:58.4359968Z".
func (v Version) String() string { return v.Name() + " " + v.TimeText() }

func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
}

func nsTime(ns uint64) time.Time {
	return time.Unix(int64(ns/1e9), int64(ns%1e9)).UTC()
}

func versionOf(g generation) Version {
	return Version{Generation: g.gen, CommitTime: nsTime(g.commitTime), NumKeys: g.numKeys}
}

// Version returns the version the tree shows.
func (t *Tree) Version() Version { return t.ver }

// Log returns every version of the tree's database, oldest first. The
// manifest is the one read when the tree was opened.
func (t *Tree) Log(ctx context.Context) ([]Version, error) { return t.db.log(ctx) }

// Versions returns every version of the tree's database, oldest first, as
// Log does, for driver.Versioned: the ID of a version is its Name ("v3"),
// which opens it in a pipeline, and Keys is its NumKeys. OCDBT records no
// commit messages.
func (t *Tree) Versions(ctx context.Context) ([]driver.Version, error) {
	log, err := t.Log(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]driver.Version, len(log))
	for i, v := range log {
		out[i] = driver.Version{ID: v.Name(), Time: v.CommitTime, Keys: int64(min(v.NumKeys, math.MaxInt64))}
	}
	return out, nil
}

// Close closes the data files the tree opened. Blobs opened from the tree
// must not be read afterwards.
func (t *Tree) Close() error { return t.db.close() }

// Value is what Stat().Sys() returns for a file of the tree: where its
// bytes are stored.
type Value struct {
	// Key is the full key.
	Key string
	// DataFile is the data file that holds an out-of-line value, relative
	// to the database directory; "" for a value stored inline in its
	// B+tree node.
	DataFile string
	// Offset is the value's offset in DataFile.
	Offset int64
}

func (t *Tree) rootInfo() *driver.FileInfo {
	return &driver.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555, FModTime: t.ver.CommitTime, FSys: &t.ver}
}

func (t *Tree) dirInfo(name string) *driver.FileInfo {
	return &driver.FileInfo{FName: name, FMode: fs.ModeDir | 0o555, FModTime: t.ver.CommitTime}
}

func (t *Tree) fileInfo(name, key string, v *value) *driver.FileInfo {
	sys := &Value{Key: key}
	if v.outOfLine {
		sys.DataFile, sys.Offset = v.file.path, int64(v.offset)
	}
	return &driver.FileInfo{FName: name, FSize: int64(v.length), FMode: 0o444, FModTime: t.ver.CommitTime, FSys: sys}
}

func base(name string) string { return name[strings.LastIndexByte(name, '/')+1:] }

// Stat describes the named file or directory. A name that is both a key
// and a prefix of other keys is a directory (see the package docs).
func (t *Tree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, fs.ErrInvalid
	}
	if name == "." {
		return t.rootInfo(), nil
	}
	dir, err := t.hasPrefix(ctx, name+"/")
	if err != nil {
		return nil, err
	}
	if dir {
		return t.dirInfo(base(name)), nil
	}
	v, err := t.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fs.ErrNotExist
	}
	return t.fileInfo(base(name), name, v), nil
}

// OpenBlob opens the named file. Out-of-line values are sections of their
// data files; inline values are served from memory.
func (t *Tree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if !fs.ValidPath(name) {
		return nil, fs.ErrInvalid
	}
	if name == "." {
		return nil, driver.ErrIsDir
	}
	dir, err := t.hasPrefix(ctx, name+"/")
	if err != nil {
		return nil, err
	}
	if dir {
		return nil, driver.ErrIsDir
	}
	return t.open(ctx, name, base(name))
}

// OpenKey opens the value of key, which may be any key, even one that
// cannot be named through io/fs (invalid UTF-8, empty segments, a key that
// is also a directory). It returns an error matching fs.ErrNotExist when
// the version has no such key.
func (t *Tree) OpenKey(ctx context.Context, key string) (driver.Blob, error) {
	return t.open(ctx, key, base(key))
}

func (t *Tree) open(ctx context.Context, key, name string) (driver.Blob, error) {
	v, err := t.lookup(ctx, key)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fs.ErrNotExist
	}
	info := t.fileInfo(name, key, v)
	if !v.outOfLine {
		return driver.BytesBlob(v.inline, info), nil
	}
	f, err := t.db.dataFile(ctx, v.file.path)
	if err != nil {
		return nil, err
	}
	if size := f.Stat().Size(); uint64(size) < v.offset+v.length {
		return nil, driver.Corruptf("data file %s is %d bytes, the value of %q ends at %d", v.file.path, size, key, v.offset+v.length)
	}
	return driver.SectionBlob(f, int64(v.offset), int64(v.length), info), nil
}

// ReadDir lists the named directory, sorted by name. Entries whose names
// are not valid fs names are left out.
func (t *Tree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, fs.ErrInvalid
	}
	prefix := ""
	if name != "." {
		prefix = name + "/"
		dir, err := t.hasPrefix(ctx, prefix)
		if err != nil {
			return nil, err
		}
		if !dir {
			v, err := t.lookup(ctx, name)
			if err != nil {
				return nil, err
			}
			if v != nil {
				return nil, driver.ErrNotDir
			}
			return nil, fs.ErrNotExist
		}
	}
	return t.list(ctx, prefix)
}

// action is what a walk callback asks for next.
type action int

const (
	descend action = iota // enter the subtree (or, for a leaf entry, go on)
	skip                  // skip the subtree
	stop                  // end the walk
)

// A walk visits the keys of a tree in order from lo, letting its callbacks
// prune subtrees and raise lo on the way.
type walk struct {
	t      *Tree
	ctx    context.Context
	lo     string // keys before lo do not matter
	visits int    // nodes read
	work   int    // entries examined
	// enter is called for an interior entry whose keys are in [from, to)
	// (to == "" with open: no upper bound) and all start with common.
	enter func(from, to string, open bool, common string) action
	// leaf is called for each leaf key >= lo.
	leaf func(key string, v *value) action
}

// run walks the tree from its root.
func (w *walk) run() error {
	g := w.t.gen
	if g.root.isMissing() {
		return nil
	}
	_, err := w.node(g.root, g.rootHeight, "", "", true)
	return err
}

// node walks the node r locates, whose keys carry prefix and are below to
// (unless open). It reports whether the walk stopped.
func (w *walk) node(r ref, height uint8, prefix, to string, open bool) (bool, error) {
	if w.visits++; w.visits > maxVisits {
		return true, driver.Limitf("a walk of the b+tree read more than %d nodes", maxVisits)
	}
	if err := w.ctx.Err(); err != nil {
		return true, err
	}
	n, err := w.t.db.btreeNode(w.ctx, r, height)
	if err != nil {
		return true, err
	}
	// Nodes may share children, so a small hostile tree can describe
	// more entries than any walk should examine: bound the work too.
	if w.work += len(n.keys); w.work > maxWork {
		return true, driver.Limitf("a walk of the b+tree examined more than %d entries", maxWork)
	}
	for i, k := range n.keys {
		if len(prefix)+len(k) > maxKeyLength {
			return true, driver.Corruptf("b+tree: key of %d bytes exceeds %d", len(prefix)+len(k), maxKeyLength)
		}
		full := prefix + k
		if height == 0 {
			if full < w.lo {
				continue
			}
			if w.leaf(full, &n.values[i]) == stop {
				return true, nil
			}
			continue
		}
		hi, hiOpen := to, open
		if i+1 < len(n.keys) {
			hi, hiOpen = prefix+n.keys[i+1], false
		}
		if !hiOpen && hi <= w.lo {
			continue // the whole subtree is before lo
		}
		common := prefix + k[:n.prefixLen[i]]
		switch w.enter(full, hi, hiOpen, common) {
		case stop:
			return true, nil
		case skip:
			continue
		}
		stopped, err := w.node(n.children[i], height-1, common, hi, hiOpen)
		if stopped || err != nil {
			return true, err
		}
	}
	return false, nil
}

// lookup returns the value of key, nil when there is none.
func (t *Tree) lookup(ctx context.Context, key string) (*value, error) {
	var found *value
	w := &walk{t: t, ctx: ctx, lo: key}
	w.enter = func(from, to string, open bool, common string) action {
		if from > key || !strings.HasPrefix(key, common) {
			return stop // key is in this subtree's range, or in none
		}
		return descend
	}
	w.leaf = func(k string, v *value) action {
		if k == key {
			found = v
		}
		return stop
	}
	return found, w.run()
}

// hasPrefix reports whether some key starts with p.
func (t *Tree) hasPrefix(ctx context.Context, p string) (bool, error) {
	found := false
	w := &walk{t: t, ctx: ctx, lo: p}
	w.enter = func(from, to string, open bool, common string) action {
		switch {
		case strings.HasPrefix(common, p):
			found = true // every key of the subtree starts with p
			return stop
		case strings.HasPrefix(p, common):
			return descend
		case common < p:
			return skip
		}
		return stop
	}
	w.leaf = func(k string, v *value) action {
		found = strings.HasPrefix(k, p)
		return stop
	}
	return found, w.run()
}

// list returns the entries of the directory whose keys start with prefix
// ("" for the root).
func (t *Tree) list(ctx context.Context, prefix string) ([]fs.DirEntry, error) {
	maxEntries := t.db.lim.MaxEntries
	dirs := make(map[string]bool)
	files := make(map[string]*driver.FileInfo)
	count := 0
	var limitErr error
	w := &walk{t: t, ctx: ctx, lo: prefix}
	// addDir records subdirectory name and moves lo past its keys: they
	// all start with prefix+name+"/", and "0" follows "/".
	addDir := func(name string) action {
		if !dirs[name] {
			dirs[name] = true
			if count++; count > maxEntries {
				limitErr = driver.Limitf("directory %q has more than %d entries (Limits.MaxEntries)", strings.TrimSuffix(prefix, "/"), maxEntries)
				return stop
			}
		}
		w.lo = prefix + name + "0"
		return skip
	}
	w.enter = func(from, to string, open bool, common string) action {
		if from > prefix && !strings.HasPrefix(from, prefix) {
			return stop // this subtree and the rest are past the directory
		}
		if rest, ok := strings.CutPrefix(common, prefix); ok {
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				return addDir(rest[:j])
			}
			return descend
		}
		if strings.HasPrefix(prefix, common) {
			// When the whole range lies inside one subdirectory, its
			// name is known without reading the subtree.
			if rest, ok := strings.CutPrefix(from, prefix); ok && !open {
				if j := strings.IndexByte(rest, '/'); j >= 0 && to <= prefix+rest[:j]+"0" {
					return addDir(rest[:j])
				}
			}
			return descend
		}
		if common < prefix {
			return skip
		}
		return stop
	}
	w.leaf = func(k string, v *value) action {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			return stop
		}
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			addDir(rest[:j])
			if limitErr != nil {
				return stop
			}
			return descend
		}
		if _, dup := files[rest]; !dup {
			files[rest] = t.fileInfo(rest, k, v)
			if count++; count > maxEntries {
				limitErr = driver.Limitf("directory %q has more than %d entries (Limits.MaxEntries)", strings.TrimSuffix(prefix, "/"), maxEntries)
				return stop
			}
		}
		return descend
	}
	if err := w.run(); err != nil {
		return nil, err
	}
	if limitErr != nil {
		return nil, limitErr
	}
	ents := make([]fs.DirEntry, 0, len(dirs)+len(files))
	for name := range dirs {
		if validName(name) {
			ents = append(ents, t.dirInfo(name))
		}
	}
	for name, fi := range files {
		if validName(name) && !dirs[name] { // a directory wins over a key
			ents = append(ents, fi)
		}
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// validName reports whether a key segment can be an fs name.
func validName(s string) bool {
	return s != "." && fs.ValidPath(s)
}
