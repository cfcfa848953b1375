package vfs

import (
	"context"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A streamDir is the directory that a decompressed stream (gzip:, zstd:,
// xz:, pipefs.bzip2:, any adapter registered as a Stream) appears as where
// a directory is wanted and its contents are no container: one regular
// file, named as the stream's driver names it ("big.txt" for big.txt.gz,
// see fsname.Decompressed). Its files share the stream's blob, which the
// pipeline owns: what the blob learns as it decodes (its index, its size)
// serves every file, and closing a file leaves it open.
type streamDir struct {
	name string
	blob driver.Blob
}

// streamDir returns the one-file directory of loc, the blob of r's last
// sub-URL; ok is false when that sub-URL is not a stream adapter's.
func (r *result) streamDir(reg *Registry, loc driver.Location) (_ driver.Location, ok bool) {
	a := reg.Adapter(r.p[len(r.p)-1].Scheme)
	if a == nil || !a.Stream || loc.Blob == nil || len(r.p) < 2 {
		return driver.Location{}, false
	}
	name := streamName(loc.Blob.Stat().Name(), r.p[:len(r.p)-1])
	return driver.Location{Tree: &streamDir{name: name, blob: loc.Blob}, Path: "."}, true
}

// streamName is the name of the file in a streamDir: the name the
// stream's driver gave it, or, when that is no single path element, the
// base name of the input's pipeline base.
func streamName(name string, base Pipeline) string {
	if name != "" && name != "." && name != ".." && fs.ValidPath(name) && !strings.Contains(name, "/") {
		return name
	}
	if b := path.Base(base[len(base)-1].Key()); b != "" && b != "." && b != "/" && fs.ValidPath(b) {
		return b
	}
	return "data"
}

func (d *streamDir) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	switch name {
	case ".":
		return streamDirInfo{d.blob.Stat().ModTime()}, nil
	case d.name:
		return namedInfo{d.blob.Stat(), d.name}, nil
	}
	return nil, fs.ErrNotExist
}

func (d *streamDir) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	switch name {
	case ".":
		return []fs.DirEntry{fs.FileInfoToDirEntry(namedInfo{d.blob.Stat(), d.name})}, nil
	case d.name:
		return nil, ErrNotDir
	}
	return nil, fs.ErrNotExist
}

func (d *streamDir) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	switch name {
	case ".":
		return nil, ErrIsDir
	case d.name:
		return shared(d.blob), nil
	}
	return nil, fs.ErrNotExist
}

// shared returns b as a file of a streamDir gives it: its Close leaves b
// open, and it is a driver.Streamer and driver.Compressed when b is both,
// as the stream adapters' blobs are.
func shared(b driver.Blob) driver.Blob {
	s, sok := b.(driver.Streamer)
	c, cok := b.(driver.Compressed)
	if sok && cok {
		return sharedStream{sharedBlob{b}, s, c}
	}
	return sharedBlob{b}
}

// sharedBlob is a blob that its holder does not close.
type sharedBlob struct{ b driver.Blob }

func (s sharedBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return s.b.ReadAt(ctx, p, off)
}

func (s sharedBlob) Stat() fs.FileInfo { return s.b.Stat() }

// sharedStream is a sharedBlob of a Streamer that knows its compressed
// size.
type sharedStream struct {
	sharedBlob
	driver.Streamer
	driver.Compressed
}

// namedInfo is a FileInfo under another name.
type namedInfo struct {
	fs.FileInfo
	name string
}

func (i namedInfo) Name() string { return i.name }

// SizeKnown passes on the stream's (see driver.SizeKnower).
func (i namedInfo) SizeKnown() bool {
	k, ok := i.FileInfo.(driver.SizeKnower)
	return !ok || k.SizeKnown()
}

// streamDirInfo describes the root of a streamDir.
type streamDirInfo struct{ mod time.Time }

func (streamDirInfo) Name() string         { return "." }
func (streamDirInfo) Size() int64          { return 0 }
func (streamDirInfo) Mode() fs.FileMode    { return fs.ModeDir | 0o555 }
func (i streamDirInfo) ModTime() time.Time { return i.mod }
func (streamDirInfo) IsDir() bool          { return true }
func (streamDirInfo) Sys() any             { return nil }
