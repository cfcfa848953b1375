// Package pipefs opens URL pipelines, such as
//
//	file:/data/a.zip|zip:inner/b.zip|zip:dir/f.txt
//
// and returns standard io/fs values: an FS that implements fs.FS,
// fs.StatFS, fs.ReadDirFS, fs.ReadFileFS and fs.SubFS, whose regular files
// implement io.ReaderAt and io.Seeker. So the result works with
// http.FileServerFS, fs.WalkDir, fs.Glob, template.ParseFS and io.Copy.
//
// Importing this package registers the local roots ("file:", "memory:")
// and every adapter (zip, tar, gzip, zstd, bzip2, xz, byte-range, json, hdf5,
// zarr, n5, neuroglancer-precomputed, ocdbt, icechunk, and the images png,
// jpeg, bmp, tiff, webp and avif), all pure Go. It
// does not register the remote roots, so that a program that reads local
// files does not carry an HTTP client, a TLS stack or a cloud SDK: import
// them by their packages (roots/httproot for "http:" and "https:",
// roots/s3root for "s3:", roots/gsroot for "gs:"), or all of them with
//
//	import _ "github.com/pipefs/pipefs/all"
//
// Opening a scheme that is not registered fails with an error that names
// the package to import. The grammar, the engine and the FS types live in
// package vfs: its Open, OpenFS and OpenDetect take Options, and an FS
// opens a nested container relative to itself (FS.OpenFS). This package
// registers the formats and names what most programs need.
//
// Each sub-URL is one layer: a root ("file:", "memory:") gives a tree or a
// file, and each adapter ("zip:", "byte-range:") reads the layer before it
// through io.ReaderAt. Nothing is extracted or copied unless read.
package pipefs

import (
	"context"

	"github.com/pipefs/pipefs/vfs"

	// The local roots and every adapter; the remote roots are in package all.
	_ "github.com/pipefs/pipefs/adapters/bzip2adapter"
	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/hdf5adapter"
	_ "github.com/pipefs/pipefs/adapters/icechunkadapter"
	_ "github.com/pipefs/pipefs/adapters/imageadapter"
	_ "github.com/pipefs/pipefs/adapters/jsonadapter"
	_ "github.com/pipefs/pipefs/adapters/n5adapter"
	_ "github.com/pipefs/pipefs/adapters/ocdbtadapter"
	_ "github.com/pipefs/pipefs/adapters/precomputedadapter"
	_ "github.com/pipefs/pipefs/adapters/rangeadapter"
	_ "github.com/pipefs/pipefs/adapters/taradapter"
	_ "github.com/pipefs/pipefs/adapters/xzadapter"
	_ "github.com/pipefs/pipefs/adapters/zarradapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	_ "github.com/pipefs/pipefs/adapters/zstdadapter"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	_ "github.com/pipefs/pipefs/roots/memroot"
)

// FS is an opened directory location: an fs.FS, fs.StatFS, fs.ReadDirFS,
// fs.ReadFileFS and fs.SubFS.
type FS = vfs.FS

// File is an opened file or directory location.
type File = vfs.File

// Options configure how a pipeline is opened; nil means defaults.
type Options = vfs.Options

// Limits bound what hostile input can make pipefs do.
type Limits = vfs.Limits

// OpenFS opens the directory location that pipeline names, with default
// Options, as vfs.OpenFS does. A container file is accepted:
// "file:/d/a.zip" opens as "file:/d/a.zip|zip:" (format detection). The FS
// uses ctx for I/O; Close releases it. With Options, call vfs.OpenFS.
func OpenFS(ctx context.Context, pipeline string) (*FS, error) {
	return vfs.OpenFS(ctx, pipeline, nil)
}

// Open opens the file or directory location that pipeline names, as
// written and with default Options, as vfs.Open does. Close releases it.
// With Options, call vfs.Open.
func Open(ctx context.Context, pipeline string) (*File, error) {
	return vfs.Open(ctx, pipeline, nil)
}
