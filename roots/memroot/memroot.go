// Package memroot registers the "memory:" root: an in-memory store of
// files that tests and programs write through this package's API and read
// through pipelines.
//
// Each vfs.Cache has a store of its own ([For]), and "memory:" reads the
// store of the pipeline's cache (vfs.Options.Cache), so pipelines opened
// with different caches see different files. [Default] is the store of
// vfs.DefaultCache(), which the package-level WriteFile, MkdirAll and
// RemoveAll write.
//
// "memory:", "memory:/" and "memory://" name the store's root;
// "memory:a/b", "memory:/a/b" and "memory://a/b" name the key "a/b".
// Directories are implicit (every parent of a key is one) or made with
// MkdirAll. A file is a snapshot: readers keep the bytes they opened even if
// the key is written again. The store is safe for concurrent use.
//
// The tree of each "memory:" stage is a driver.Counter: it counts the
// reads (ReadAt calls, reported as driver.Counts.Requests) of the blobs
// opened through it and the bytes they returned (Counts.Bytes), so that
// vfs.FS.Stages and "pipefs explain" say what reading it cost. A Store
// used as a tree directly counts nothing.
package memroot

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterRoot(&vfs.Root{Scheme: "memory", Open: func(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		if err := ctx.Err(); err != nil {
			return driver.Location{}, err
		}
		return driver.Location{Tree: &counted{Store: For(env.Cache), stats: new(cache.Stats)}, Path: u.Key()}, nil
	}})
}

// storeKey keys the store among the resources of a vfs.Cache.
type storeKey struct{}

// For returns the store of c, which "memory:" reads in pipelines opened
// with c (nil means vfs.DefaultCache()).
func For(c *vfs.Cache) *Store {
	if c == nil {
		c = vfs.DefaultCache()
	}
	return c.Resource(storeKey{}, func() any { return NewStore() }).(*Store)
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{files: map[string]*entry{}, dirs: map[string]time.Time{}}
}

// Default returns the store of vfs.DefaultCache(), which "memory:" reads
// in pipelines opened with no Options.Cache.
func Default() *Store { return For(nil) }

// WriteFile stores data (copied) under name in the default store,
// replacing what was there. name is an fs.ValidPath name.
func WriteFile(name string, data []byte) error { return Default().WriteFile(name, data) }

// MkdirAll makes the directory name and its parents in the default store.
func MkdirAll(name string) error { return Default().MkdirAll(name) }

// RemoveAll removes name and everything below it from the default store;
// "." empties the store.
func RemoveAll(name string) error { return Default().RemoveAll(name) }

// Store is an in-memory tree of files. It implements driver.Tree.
type Store struct {
	mu    sync.RWMutex
	files map[string]*entry
	dirs  map[string]time.Time // explicit directories
	seq   uint64               // counts the writes
}

type entry struct {
	data []byte
	mod  time.Time
	seq  uint64 // which write of the store made it
}

var _ driver.Tree = (*Store)(nil)

func bad(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
}

// WriteFile stores a copy of data under name.
func (s *Store) WriteFile(name string, data []byte) error {
	if !fs.ValidPath(name) || name == "." {
		return bad("write", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isDirLocked(name) {
		return &fs.PathError{Op: "write", Path: name, Err: driver.ErrIsDir}
	}
	for d := path.Dir(name); d != "."; d = path.Dir(d) {
		if _, ok := s.files[d]; ok {
			return &fs.PathError{Op: "write", Path: name, Err: fmt.Errorf("%w: %s", driver.ErrNotDir, d)}
		}
	}
	s.seq++
	s.files[name] = &entry{slices.Clone(data), time.Now(), s.seq}
	return nil
}

// MkdirAll makes the directory name and its parents.
func (s *Store) MkdirAll(name string) error {
	if !fs.ValidPath(name) {
		return bad("mkdir", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for d := name; d != "."; d = path.Dir(d) {
		if _, ok := s.files[d]; ok {
			return &fs.PathError{Op: "mkdir", Path: name, Err: fmt.Errorf("%w: %s", driver.ErrNotDir, d)}
		}
	}
	now := time.Now()
	for d := name; d != "."; d = path.Dir(d) {
		if _, ok := s.dirs[d]; !ok {
			s.dirs[d] = now
		}
	}
	return nil
}

// RemoveAll removes name and everything below it; "." empties the store.
func (s *Store) RemoveAll(name string) error {
	if !fs.ValidPath(name) {
		return bad("remove", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.DeleteFunc(s.files, func(k string, _ *entry) bool { return under(k, name) })
	maps.DeleteFunc(s.dirs, func(k string, _ time.Time) bool { return under(k, name) })
	return nil
}

// under reports whether k is name or below it.
func under(k, name string) bool {
	return name == "." || k == name || strings.HasPrefix(k, name+"/")
}

func (s *Store) isDirLocked(name string) bool {
	if name == "." {
		return true
	}
	if _, ok := s.dirs[name]; ok {
		return true
	}
	for k := range s.files {
		if strings.HasPrefix(k, name+"/") {
			return true
		}
	}
	return false
}

func dirInfo(name string, mod time.Time) *driver.FileInfo {
	return &driver.FileInfo{FName: path.Base(name), FMode: fs.ModeDir | 0o755, FModTime: mod}
}

func fileInfo(name string, e *entry) *driver.FileInfo {
	return &driver.FileInfo{FName: path.Base(name), FSize: int64(len(e.data)), FMode: 0o644, FModTime: e.mod}
}

// Stat describes name.
func (s *Store) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e, ok := s.files[name]; ok {
		return fileInfo(name, e), nil
	}
	if s.isDirLocked(name) {
		return dirInfo(name, s.dirs[name]), nil
	}
	return nil, fs.ErrNotExist
}

// ReadDir lists the directory name, sorted by name.
func (s *Store) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.files[name]; ok {
		return nil, driver.ErrNotDir
	}
	if !s.isDirLocked(name) {
		return nil, fs.ErrNotExist
	}
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]fs.DirEntry{}
	child := func(k string) (string, bool) {
		if !strings.HasPrefix(k, prefix) {
			return "", false
		}
		rest := k[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[:i], true
		}
		return rest, false
	}
	for k, e := range s.files {
		if c, isDir := child(k); c != "" {
			if isDir {
				seen[c] = dirInfo(c, s.dirs[prefix+c])
			} else {
				seen[c] = fileInfo(c, e)
			}
		}
	}
	for k, mod := range s.dirs {
		if c, _ := child(k); c != "" {
			if _, ok := seen[c]; !ok {
				seen[c] = dirInfo(c, mod)
			}
		}
	}
	out := make([]fs.DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// OpenBlob opens the file name. The blob reads the bytes stored when it
// was opened; its driver.Fingerprinter names that write, so that what
// adapters cache about one write is not used for another.
func (s *Store) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	return s.openBlob(ctx, name, nil)
}

// openBlob is OpenBlob, with the blob's reads counted in stats (nil
// counts nothing).
func (s *Store) openBlob(ctx context.Context, name string, stats *cache.Stats) (driver.Blob, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e, ok := s.files[name]; ok {
		return &blob{driver.BytesBlob(e.data, fileInfo(name, e)), "memory write " + strconv.FormatUint(e.seq, 10), stats}, nil
	}
	if s.isDirLocked(name) {
		return nil, driver.ErrIsDir
	}
	return nil, fs.ErrNotExist
}

// blob is a file of a store, with the version of its bytes.
type blob struct {
	driver.Blob
	version string
	stats   *cache.Stats // nil: not counted
}

// ReadAt reads as the bytes' blob does, counting the read.
func (b *blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	n, err := b.Blob.ReadAt(ctx, p, off)
	if b.stats != nil {
		b.stats.AddRequest()
		b.stats.AddBytes(int64(n))
	}
	return n, err
}

// Fingerprint names the write of the store whose bytes b reads.
func (b *blob) Fingerprint() string { return b.version }

// counted is the tree of one "memory:" stage: the store, with the reads of
// the blobs opened through it counted.
type counted struct {
	*Store
	stats *cache.Stats
}

var _ driver.Counter = (*counted)(nil)

func (c *counted) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	return c.openBlob(ctx, name, c.stats)
}

// As sets *target to the store when target is a **Store.
func (c *counted) As(target any) bool {
	if p, ok := target.(**Store); ok {
		*p = c.Store
		return true
	}
	return false
}

// Stats returns the reads (as Requests) and bytes read of the blobs opened
// through the tree so far.
func (c *counted) Stats() driver.Counts { return c.stats.Snapshot() }
