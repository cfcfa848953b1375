// Package icechunkadapter registers the "icechunk:" adapter, which reads
// an Icechunk repository (a transactional, versioned store for Zarr v3)
// at one snapshot and presents the snapshot as a read-only tree of Zarr
// v3 keys:
//
//	file:/d/repo.icechunk/|icechunk://branch.main/|zarr3:
//	file:/d/repo.icechunk/|icechunk://tag.it%20works!/group1/
//	file:/d/repo.icechunk/|icechunk://NXH3M0HJ7EEJ0699DPP0/group1/big_chunks/c/0/1
//
// The base is the repository's directory, on any root or inside a zip.
// REF (percent-decoded by the grammar) is branch.NAME, tag.NAME or a
// 20-character snapshot id; none means branch.main. A ref that names
// nothing, and a deleted tag, are errors matching fs.ErrNotExist; for a
// spec v2 repository the message lists the refs that exist. Importing
// the package also registers a directory format: a base directory with
// snapshots/ and either refs/ (spec v1) or a repo file (spec v2) is
// detected as "icechunk:".
//
// # Formats
//
// Both Icechunk 1.x (spec v1: refs/ holds JSON refs) and 2.x (spec v2 and
// 2.1: a binary repo file holds refs and the snapshot list) are read, as
// is a repository migrated from v1 to v2 (v1 snapshot files next to a v2
// repo file). Repositories written by Icechunk 0.1.x, whose metadata is
// MessagePack, are refused with an error matching ErrLegacyFormat.
//
// The flatbuffers of snapshot, manifest and repo files are decoded by
// hand (see format.go): every offset, vtable and vector count is checked
// against the buffer, so malformed input gives an error matching
// driver.ErrCorrupt and never a panic.
//
// # The key space
//
// Each group or array node has a zarr.json, its metadata verbatim as
// Icechunk stores it. Each chunk that exists has a key below its array
// following the array's chunk_key_encoding: "c/0/1" for the default
// encoding ("c.0.1" with the "." separator), "0.1" or "0/1" for the v2
// encoding, and "c" (or "0") for an array of rank 0. Chunks that do not
// exist have no key, so Zarr readers use the fill value. Directories are
// implied by node paths and chunk keys; an array without chunks has only
// its zarr.json. Modes are 0444 and 0555 for directories; ModTime is the
// snapshot's commit time.
//
// Stat(".").Sys() of a Tree is a *Snapshot (id, parent, time, message);
// through vfs.FS it is the Header of the *vfs.Origin. Stat of a chunk key
// gives a *Chunk (inline, native or virtual, and where the bytes are).
// History lists a snapshot's ancestors: Log for a repository and a ref,
// Tree.History for an opened snapshot. Tree.Refs lists the repository's
// branches and tags.
//
// # Reading
//
// Opening a name never lists anything: zarr.json is found by a binary
// search of the snapshot's nodes, a chunk by binary searches in the
// manifest whose extents hold its coordinates. Listing a directory of
// chunk keys builds the array's chunk index once, from all its manifests.
// Inline chunks are served from memory; a native chunk is a
// driver.SectionBlob of its file in chunks/, never copied, and each chunk
// file is opened once and shared by the chunks in it.
//
// # Virtual chunks
//
// A virtual chunk is a byte range of an object outside the repository:
// s3://, gs://, http(s):// or file:// URLs chosen by whoever wrote the
// repository. They are listed like other chunks, with their size, but
// reading one is refused, with an error that names the URL and matches
// fs.ErrPermission, unless Options allow it: a list of URL prefixes
// (opened as pipelines with the registered roots), a Resolve function, or
// both. The default adapter in vfs.DefaultRegistry has no Options, so it
// never reads virtual chunks; a program that wants them registers
// NewAdapter(o) in its own vfs.Registry, or calls Open directly.
//
// # Contracts
//
// A Tree is safe for concurrent use. It keeps the decoded snapshot, the
// manifests it has read and the chunk index of every array it has listed
// until it is closed; nothing decoded is shared across Trees. Opened as
// a pipeline with a store on disk (vfs.Options.Disk, vfs.Env.DiskObject),
// the adapter keeps a copy of every snapshot and manifest file it reads,
// keyed by the repository's pipeline and the file's name, so a later
// process that opens the same repository reads them from disk: Icechunk
// names them by random ids and never rewrites them. A copy is decoded
// with every check above and must hold the id it is named by; one that
// fails is a miss, read again and kept anew. The refs (refs/ in spec v1,
// the repo file in spec v2) change with every commit and are never kept,
// so a later process sees new commits. Close releases the
// chunk files it opened (blobs handed out stop working) but never closes
// the base tree, which the pipeline owns. Blobs of virtual chunks own
// their target and close it when closed.
//
// # Limits
//
// Hostile repositories are bounded: metadata files at 256 MiB stored and
// decompressed (and a zstd frame may not declare more than 1100 times its
// size, beyond 1 MiB), virtual chunk locations at 1 KiB, ref files at
// 4 KiB, arrays at 64 dimensions; nodes per snapshot, snapshots and refs
// per repo, chunks indexed per array and the length of a history are
// bounded by vfs.Limits.MaxEntries, node paths by MaxNameLength. Node
// paths must be clean (no empty, "." or ".." segment); duplicate paths,
// nodes inside arrays, chunk indexes of the wrong rank, out-of-range
// offsets and cycles in the parent chain are corrupt. Violations are
// errors matching driver.ErrLimit or driver.ErrCorrupt.
package icechunkadapter
