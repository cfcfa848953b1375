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
// package vfs; this package re-exports what most programs need.
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

// Options configure how a pipeline is opened; nil means defaults.
type Options = vfs.Options

// Limits bound what hostile input can make pipefs do.
type Limits = vfs.Limits

// OpenFS opens the directory location that pipeline names and returns its
// FS. A container file is accepted: "file:/d/a.zip" opens as
// "file:/d/a.zip|zip:" (format auto-detection; Options.NoDetect turns it
// off). The FS uses ctx for I/O; Close releases it.
func OpenFS(ctx context.Context, pipeline string) (*vfs.FS, error) {
	return vfs.OpenFS(ctx, pipeline, nil)
}

// OpenFile opens the file location that pipeline names. Close releases it.
func OpenFile(ctx context.Context, pipeline string) (*vfs.File, error) {
	return vfs.OpenFile(ctx, pipeline, nil)
}

// Open opens any location, file or directory, without format detection.
func Open(ctx context.Context, pipeline string) (*vfs.File, error) {
	return vfs.Open(ctx, pipeline, nil)
}

// OpenFSWith is OpenFS with options.
func OpenFSWith(ctx context.Context, pipeline string, o *Options) (*vfs.FS, error) {
	return vfs.OpenFS(ctx, pipeline, o)
}

// OpenFileWith is OpenFile with options.
func OpenFileWith(ctx context.Context, pipeline string, o *Options) (*vfs.File, error) {
	return vfs.OpenFile(ctx, pipeline, o)
}

// Parse parses and canonicalises a pipeline.
func Parse(pipeline string) (vfs.Pipeline, error) { return vfs.Parse(pipeline) }
