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
// see fsname.Decompressed). Each OpenBlob opens the stream anew over the
// same input, so each file has its own blob to close while the decoding
// state the driver keeps in the Cache (its index) is shared.
type streamDir struct {
	name string
	info fs.FileInfo // the stream's
	open func(ctx context.Context) (driver.Blob, error)
}

// streamInput is what the last adapter a pipeline opened over a file read:
// what a streamDir opens its stream over again.
type streamInput struct {
	a   *Adapter
	i   int // the adapter's index in the pipeline
	in  driver.Blob
	env *Env
}

// streamDir returns the one-file directory of the stream that r's last
// sub-URL opened, whose info is info; ok is false when the last sub-URL is
// not a stream adapter's.
func (r *result) streamDir(info fs.FileInfo) (loc driver.Location, ok bool) {
	s := r.lastIn
	if s == nil || s.i != len(r.p)-1 || !s.a.Stream || info == nil {
		return driver.Location{}, false
	}
	u := r.p[s.i]
	open := func(ctx context.Context) (driver.Blob, error) {
		out, err := s.a.OpenFile(ctx, s.in, u, s.env)
		if err != nil {
			return nil, err
		}
		if out.Blob == nil {
			return nil, driver.Corruptf("the %s adapter yields no file", s.a.Scheme)
		}
		return out.Blob, nil
	}
	return driver.Location{Tree: &streamDir{name: streamName(info.Name(), r.p[:s.i]), info: info, open: open}, Path: "."}, true
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
		return streamDirInfo{d.info.ModTime()}, nil
	case d.name:
		return namedInfo{d.info, d.name}, nil
	}
	return nil, fs.ErrNotExist
}

func (d *streamDir) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	switch name {
	case ".":
		return []fs.DirEntry{fs.FileInfoToDirEntry(namedInfo{d.info, d.name})}, nil
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
		return d.open(ctx)
	}
	return nil, fs.ErrNotExist
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
