// Package fileroot registers the "file:" root: read-only access to the local
// filesystem.
//
// A "file:" sub-URL names an absolute local path ("file:/p", "file:///p" and
// "file://localhost/p" are the same). When the path is a directory the
// stage is a tree confined to that directory: names are resolved with
// os.Root, so nothing under it can reach outside through ".." or symbolic
// links (a link that leaves the directory fails with an error matching
// driver.ErrUnsafePath and fs.ErrPermission). When the path is a regular file
// the stage is that file. Another host ("file://server/share") is refused
// at open. Nothing is ever written.
//
// Trees and blobs are safe for concurrent use; a blob owns its *os.File and
// closes it when closed. A blob's driver.Fingerprinter names the version of
// the file it opened (size, times, device and inode), so what adapters
// cache about it is not used for a file replaced since; its
// driver.Revalidator stats the name again to tell whether it still names
// that version.
//
// Trees and blobs are driver.Counter values: a blob counts its reads
// (ReadAt calls, reported as driver.Counts.Requests) and the bytes they
// returned (Counts.Bytes), and a tree the reads of every blob opened from
// it, so that vfs.FS.Stages and "pipefs explain" say what a local file
// cost as they do for a remote object. Hits and Misses stay 0: local
// reads do not go through the block cache.
package fileroot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterRoot(&vfs.Root{Scheme: "file", Open: open, Durable: true, Local: true, FollowsLinks: true})
}

func open(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	if h := u.Host(); h != "" && !strings.EqualFold(h, "localhost") {
		return driver.Location{}, fmt.Errorf("remote file hosts are not supported (host %q): %w", h, errors.ErrUnsupported)
	}
	name := "/" + u.Key()
	if u.Key() == "." {
		name = "/"
	}
	return OpenPath(ctx, name)
}

// OpenPath returns the location of the local path name: a tree confined to
// it when it is a directory, a blob when it is a regular file.
func OpenPath(ctx context.Context, name string) (driver.Location, error) {
	if err := ctx.Err(); err != nil {
		return driver.Location{}, err
	}
	info, err := os.Stat(name)
	if err != nil {
		return driver.Location{}, mapErr(err)
	}
	if info.IsDir() {
		root, err := os.OpenRoot(name)
		if err != nil {
			return driver.Location{}, mapErr(err)
		}
		return driver.Location{Tree: &Tree{root: root, stats: new(cache.Stats)}, Path: "."}, nil
	}
	if !info.Mode().IsRegular() {
		return driver.Location{}, fmt.Errorf("%s is not a regular file or directory: %w", name, fs.ErrInvalid)
	}
	f, err := os.Open(name)
	if err != nil {
		return driver.Location{}, mapErr(err)
	}
	// The file opened may not be the one stat described (a rename in
	// between): its own stat is the one that names its version.
	if info, err = f.Stat(); err != nil {
		f.Close()
		return driver.Location{}, mapErr(err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return driver.Location{}, fmt.Errorf("%s is not a regular file: %w", name, fs.ErrInvalid)
	}
	restat := func() (fs.FileInfo, error) { return os.Stat(name) }
	return driver.Location{Blob: &blob{f: f, info: info, restat: restat, stats: new(cache.Stats)}}, nil
}

// Tree is a local directory, confined with os.Root.
type Tree struct {
	root  *os.Root
	stats *cache.Stats // the reads of the blobs opened from the tree
}

var (
	_ driver.Tree    = (*Tree)(nil)
	_ driver.Counter = (*Tree)(nil)
)

// Stats returns the reads (as Requests) and bytes read of every blob
// opened from the tree so far.
func (t *Tree) Stats() driver.Counts { return t.stats.Snapshot() }

// Close closes the directory handle.
func (t *Tree) Close() error { return t.root.Close() }

// As sets *target to the *os.Root of the tree when target is a **os.Root.
func (t *Tree) As(target any) bool {
	if p, ok := target.(**os.Root); ok {
		*p = t.root
		return true
	}
	return false
}

// Stat describes name, following links that stay inside the tree.
func (t *Tree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info, err := t.root.Stat(name)
	if err != nil {
		return nil, mapErr(err)
	}
	return info, nil
}

// ReadDir lists the directory name, sorted by name.
func (t *Tree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := t.root.Open(name)
	if err != nil {
		return nil, mapErr(err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if errors.Is(err, syscall.ENOTDIR) {
		return nil, driver.ErrNotDir
	}
	if err != nil {
		return nil, mapErr(err)
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// OpenBlob opens the regular file name.
func (t *Tree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := t.root.Open(name)
	if err != nil {
		return nil, mapErr(err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, mapErr(err)
	}
	if info.IsDir() {
		f.Close()
		return nil, driver.ErrIsDir
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file: %w", name, fs.ErrInvalid)
	}
	restat := func() (fs.FileInfo, error) { return t.root.Stat(name) }
	return &blob{f: f, info: info, restat: restat, stats: t.stats}, nil
}

type blob struct {
	f    *os.File
	info fs.FileInfo
	// restat describes what the blob's name names now (Revalidate).
	restat func() (fs.FileInfo, error)
	// stats counts the reads, the tree's for a blob opened from one.
	stats *cache.Stats
}

var (
	_ driver.Revalidator = (*blob)(nil)
	_ driver.Counter     = (*blob)(nil)
)

// Stats returns the reads (as Requests) and bytes read so far; for a
// blob opened from a tree, those of every blob of the tree.
func (b *blob) Stats() driver.Counts { return b.stats.Snapshot() }

func (b *blob) Stat() fs.FileInfo { return b.info }
func (b *blob) Close() error      { return b.f.Close() }

// Fingerprint names the version of the file as it was when opened: its
// size and modification time, and where the system gives them, its device,
// inode and change time. A file replaced by a rename has another inode,
// and one rewritten in place another change time, even when its size and
// modification time were kept (os.Chtimes cannot set the change time).
func (b *blob) Fingerprint() string { return fingerprint(b.info) }

func fingerprint(info fs.FileInfo) string {
	return fmt.Sprintf("file size %d mtime %d%s", info.Size(), info.ModTime().UnixNano(), sysVersion(info))
}

// Revalidate stats the file's name again (one stat, no read): it returns
// nil when the name still names the version Fingerprint names, and an
// error matching driver.ErrModified when it names another (a file
// rewritten, appended to or replaced by a rename) or, matching
// fs.ErrNotExist too, nothing. The blob goes on reading the file it
// opened.
func (b *blob) Revalidate(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := b.restat()
	if err != nil {
		err = mapErr(err)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %w", err, driver.ErrModified)
		}
		return err
	}
	if fingerprint(info) != b.Fingerprint() {
		return fmt.Errorf("%w: the file's size, times or inode changed", driver.ErrModified)
	}
	return nil
}

func (b *blob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n, err := b.f.ReadAt(p, off)
	b.stats.AddRequest()
	b.stats.AddBytes(int64(n))
	return n, err
}

// As sets *target to the *os.File when target is a **os.File.
func (b *blob) As(target any) bool {
	if p, ok := target.(**os.File); ok {
		*p = b.f
		return true
	}
	return false
}

// mapErr strips the *fs.PathError that os adds (the engine names the path
// in its own namespace) and marks escapes from the root.
func mapErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	// A name below a regular file ("a.txt/x") does not exist, as in
	// every other tree.
	if errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%w (a parent is not a directory)", fs.ErrNotExist)
	}
	// os.Root reports escapes with an unexported error whose text is
	// fixed: "path escapes from parent".
	if strings.Contains(err.Error(), "escapes from parent") {
		return fmt.Errorf("%w: %w (link or name leads outside the directory)", driver.ErrUnsafePath, fs.ErrPermission)
	}
	return err
}
