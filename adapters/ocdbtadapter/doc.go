// Package ocdbtadapter registers the "ocdbt:" adapter: read-only access to
// an OCDBT database (TensorStore's versioned B+tree key-value store) as a
// tree of files, at any of its versions.
//
//	file:/srv/db.ocdbt/|ocdbt:                 the latest version
//	file:/srv/db.ocdbt/|ocdbt://v3/path/key    generation 3
//	file:/srv/db.ocdbt/|ocdbt://2025-01-30T21:32:59Z/
//	                                           the latest version committed
//	                                           at or before that UTC time
//
// The base is a directory location holding manifest.ocdbt (a local
// directory, a directory inside a zip, a bucket prefix). Importing the
// package also registers a directory format that detects that file, so a
// base opened as a directory gets "|ocdbt:" appended when nothing else is
// named.
//
// # Versions
//
// Without a version, the latest one is used. "v<N>" selects generation N.
// A commit time YYYY-MM-DDThh:mm:ss[.fraction]Z selects the latest
// version whose commit time is at or before it, with nanosecond precision
// (digits of the fraction past the ninth are dropped). A version that does
// not exist is an error matching fs.ErrNotExist whose message names the
// versions that do ("the database has v1..v200"). Stat(".").Sys() on the
// root returns a *Version (generation, commit time, key count); through a
// vfs.FS it is the Header of the *vfs.Origin. [Log] lists every version,
// for history tools such as "pipefs log".
//
// # Keys and names
//
// Keys are byte strings; "/" separates directories and every other byte is
// part of a name (so the key "#" is the file "#", written %23 in a
// pipeline). A directory exists wherever some key starts with its name and
// "/"; directories are never keys themselves. Values are regular files of
// mode 0444 whose size is the value's length; every entry's ModTime is the
// version's commit time. Two rules settle the keys that io/fs cannot name:
//
//   - A key that is also a directory (the key "a" beside the key "a/b"):
//     the directory wins. Stat, Open and ReadDir see a directory "a", and
//     the value of the key "a" is not visible through io/fs. This keeps the
//     tree a valid io/fs tree (one name, one kind) whatever the order of the
//     keys, and it is what a listing of the keys as paths suggests.
//   - A key with a segment that is not a valid fs name (an empty segment as
//     in "a//b", "/a" or "a/", a "." or ".." segment, invalid UTF-8, or
//     the empty key): that segment is left out of listings, so the key is
//     not visible through io/fs. Its parent directories still exist (the
//     key "a//b" makes "a" an empty directory).
//
// [Tree.OpenKey] reads any key by its exact bytes, including the ones the
// rules above hide. The Sys value of a file's FileInfo is a *Value naming
// its full key and where its bytes are stored.
//
// # Reading
//
// Nothing is read whole. A lookup descends the B+tree from the version's
// root; a listing reads only the nodes whose key ranges can hold entries
// of the directory, and skips subtrees that lie inside one subdirectory.
// An out-of-line value is a driver.SectionBlob of its data file, so reading
// it reads that byte range of the base and nothing else; an inline value
// is already in memory and is served by driver.BytesBlob.
//
// # Contracts
//
// Concurrency: a *Tree and the blobs it returns are safe for concurrent
// use.
//
// Caching: the manifest is read once, when the tree is opened; later
// commits are not seen (open again to see them). Decoded nodes are
// immutable, so they are cached by (data file, offset, length) for the
// life of the tree, in an LRU bounded to about 32 MiB. Opened as a
// pipeline with a store on disk (vfs.Options.Disk, vfs.Env.DiskObject),
// the tree also keeps the encoded bytes of every B+tree and version-tree
// node it reads, keyed by the database's pipeline and the node's data
// file, offset and length, so a later process that opens the same
// database reads its nodes from disk: a data file is never rewritten. A
// copy is checked like the data file's bytes (CRC-32C and all); one that
// fails is a miss, read again and kept anew. The manifest, which every
// commit rewrites, is never kept, so a later process sees new commits.
//
// Ownership: the tree does not own its base; the pipeline closes the base
// after the tree. Data files are opened through the base on first use,
// kept open, shared by every blob of the tree, and closed by
// [Tree.Close]. Blobs returned by the tree must not be read after it is
// closed.
//
// # Format support and limits
//
// Every manifest, version-tree node and B+tree node is checked: magic,
// length, format version 0 and CRC-32C; bodies may be raw or zstd. The
// manifest kind "single" is supported; the "numbered" kind (manifests in
// manifest.<generation> files) is refused with an error matching
// errors.ErrUnsupported. Hostile input is bounded: an encoded node or
// manifest of at most 64 MiB, a decompressed body of at most 64 MiB, keys
// and data file paths of at most 65535 bytes, 1 to 2^20 entries per node
// and at most 64 MiB of expanded keys per node, inline values of at most
// 1 MiB, version_tree_arity_log2 in 1..16, version-tree heights of at most
// 63/arity_log2 - 1, node heights that decrease by exactly one per level
// (so neither tree can hold a cycle), at most 2^20 nodes read and 2^26
// entries examined by one operation, and directory listings and version logs of at most
// Limits.MaxEntries entries. A data file path that would leave the
// database directory is an error matching driver.ErrUnsafePath. Violations
// are errors matching driver.ErrCorrupt (and fs.ErrInvalid) or driver.ErrLimit.
package ocdbtadapter
