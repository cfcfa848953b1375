// Package taradapter implements the pipefs.tar: adapter of pipefs: it
// serves the members of a tar archive, read through a [driver.Blob], as a
// [driver.Tree].
//
// Importing the package registers the "pipefs.tar" adapter scheme and the
// "tar" format signature (a header block with a valid checksum, see
// [Match]) in [vfs.DefaultRegistry]. [Open] is the same core for programs
// that hold a blob and want an [*Archive] directly.
//
// # What is read, and whose reading is followed
//
// The headers are parsed here, block by block, to read what GNU tar,
// bsdtar and archive/tar read: ustar (with its 155-byte prefix, and
// star's shorter one), pax (records read as archive/tar reads them;
// sparse formats 0.0, 0.1 and 1.0), GNU (long names "L" and "K", old GNU
// sparse "S" with its extension blocks, incremental dumpdir entries "D",
// which are directories), V7, and numeric fields in octal or base-256.
// Where the readers agree, pipefs gives the same names and bytes. Where
// they disagree, pipefs follows bsdtar:
//
//   - A zero block ends the archive, whatever follows it; so does the end
//     of the data at a header boundary (no end-of-archive marker is
//     needed). archive/tar wants a second zero block.
//   - A malformed pax record is ignored with the records after it in
//     that header, and a NUL ends a path, link path or user or group
//     name; archive/tar refuses the header. Only the last of
//     consecutive pax headers, and of consecutive GNU long names,
//     counts, for all three.
//   - A numeric field other than the size that does not parse (uid,
//     gid, mode, times) reads as its leading octal digits, or 0.
//   - A GNU header's prefix area holds times, not a name prefix.
//
// One exception: the realsize field of a GNU header is read for sparse
// members only, as GNU tar and archive/tar read it; bsdtar takes it for
// the size of any member, even where a writer left garbage there.
//
// Bytes that cannot be a header (a bad checksum, a bad size, a header cut
// short) end the listing where they start, with every member before
// them kept; so does a stream below that fails with corrupt data (a
// .tar.gz cut short), and the member whose data the stream ends in is
// named and fails to open. Over a decompressed stream, the scan reads on
// past the end-of-archive marker to the stream's end, so that the checks
// the stream carries at its end (gzip's CRC-32, a zstd frame's checksum,
// bzip2's and xz's checks) run: a stream that fails them ends the listing
// too. [Archive.Omitted] then reports where and why (with the error, in
// driver.Omission.Err), a
// name that is not found says so too (its error matches both
// fs.ErrNotExist and [driver.ErrCorrupt]), and a member whose data the
// archive does not hold whole fails to open with an error matching
// [driver.ErrCorrupt]. When the very first header is bad, the data is not
// a tar archive and every call fails. An empty file is an empty archive.
//
// # Random access, nothing extracted
//
// A regular member is a section of the archive's blob ([driver.SectionBlob]):
// reading it reads the parent at an offset, with no copy and no buffer.
// Over a compressed stream that has random access (gzip: or zstd: with
// checkpoints), a read seeks through its checkpoints. The data offsets
// come from the scan, which reads headers and skips data by seeking, so
// it reads headers and little else.
//
// The scan does not ask the archive's size when it is not known yet (a
// [driver.SizeKnower] reporting false, as a decompressed stream's is before
// its first pass): it reads forward until io.EOF, so that a cold .tar.gz
// is decoded once, by the scan, which builds the stream's checkpoints as
// it goes, rather than once for the size and once more for the headers.
// Truncation is an error either way.
//
// Sparse members (old GNU type "S", and the GNU pax formats 0.0, 0.1 and
// 1.0, as GNU tar and bsdtar write them) are served with random access
// too: the scan reads the sparse map (from the pax records, from the old
// GNU header and its extension blocks, or from the text before the data
// in format 1.0), and ReadAt reads the data regions from the archive and
// fills holes with zeros.
//
// # The index, built once per archive
//
// The first call that needs the index (Stat, ReadDir or OpenBlob; opening
// the adapter does no I/O) scans the archive once; later calls are binary
// searches in a sorted slice. The pipefs.tar: adapter shares indexes
// among the pipelines opened with the same vfs.Cache: they are entries of
// the cache, keyed by the vfs.Env.Key of the archive file (its canonical
// pipeline and version: ETag, generation, inode), its size and
// modification time, and the limits that
// shape a scan, so a later open of the same archive reads nothing until a
// member is read. An archive whose size is not known when it is opened
// scans into an index of its own, which is cached once the scan has
// learnt the size. An index costs the cache about 200 bytes per entry, and
// the cache's byte budget evicts the least recently used of all it holds;
// an evicted index stays with the archives that hold it. A
// scan that fails because of the context or an I/O error is tried again
// by the next call; a malformed archive or a limit fails every call with
// the same error. [Open] builds a private index instead.
//
// The adapter also keeps the member table on disk (vfs.Env.DiskIndex,
// the index cache of package cache/disk), when the pipeline has a store
// there and the archive's Key names a durable version, once a scan has
// read the whole archive without error: a later process lists the
// archive, and the stream below it, without reading either. What is kept
// is checked at load as the archive's own bytes are (limits, offsets,
// sparse maps), and a kept table that does not decode is removed and the
// archive scanned again. With vfs.Options.Sidecar the table is also
// shared as a sidecar object beside the archive in its bucket.
//
// # Concurrency and ownership
//
// An [*Archive] and the blobs it returns are safe for concurrent use.
// The archive does not own the blob it reads: it never closes it, and the
// blob must stay readable while the archive or any member blob is in use.
//
// # Names
//
// Names follow io/fs: slash-separated, no leading or trailing slash. The
// leading "./" that "tar -C dir ." writes is removed, and an entry named
// "./" describes the root. Every name that fs.ValidPath accepts is
// listed as it is, "a:stream", "C:/x" and "a\\b" included. A member whose
// name it still refuses (a "..", "." or empty element, a leading "/",
// invalid UTF-8) is never reachable: it is left out of the tree, and
// [Archive.Omitted] reports it with the offset of its header and the
// reason, as [Archive.Unreachable] lists its header. (bsdtar and GNU tar
// extract "/a" as "a" and "a//b" as "a/b", and skip names with ".."
// elements; pipefs reports the first two instead of guessing.)
// Every parent directory of a member exists, whether or not the archive
// has an entry for it; implied directories have mode fs.ModeDir|0555,
// others the permission bits of their header.
//
// Duplicate names follow tar semantics, those of extracting in order: the
// last entry with a name wins. One exception keeps the tree a tree: when
// a file, link or device and a directory have the same name, whether the
// directory is an entry ("a/") or implied by a member ("a/b"), the
// directory wins. Hidden entries are listed by [Archive.Unreachable].
//
// # Links and special files
//
// A hard link reads as its target did at the link's place in the archive,
// as extraction in order would leave it: a target overwritten by a later
// entry keeps its old bytes for the link, and chains resolve since each
// link copies a target that is already resolved. A hard link whose target
// is not an earlier file (missing, later in the archive, a directory, a
// loop) is listed as an empty regular file, and opening it fails with an
// error matching [driver.ErrCorrupt]. A hard link to a symbolic link is that
// symbolic link.
//
// A symbolic link whose target stays inside the archive is followed by
// Stat and OpenBlob, and in every element of a name ("link/x"); a
// relative target resolves against the link's directory, and at most 40
// links are followed for one name (more is a loop, an error matching
// [driver.ErrCorrupt]). A link whose target is absolute, or whose ".."
// elements climb above the root at any point, is never followed: Stat
// describes it as a link (fs.ModeSymlink) and opening it fails with an
// error matching [driver.ErrUnsafePath] and fs.ErrInvalid. ReadDir lists
// every link as a link: its Info describes the link itself (mode
// fs.ModeSymlink, size the target's length), as os.Lstat does, and so do
// [Archive.Lstat] and [Archive.ReadLink] (fs.Lstat and fs.ReadLink of a
// vfs.FS), which follow links in the parent directories of a name but not
// a final one.
//
// Character and block devices and FIFOs are listed with their mode bits
// (fs.ModeDevice, fs.ModeCharDevice, fs.ModeNamedPipe); opening one fails
// with an error matching errors.ErrUnsupported.
//
// Stat().Sys() of a member returns its *tar.Header, with its pax records
// in PAXRecords; it is nil for implied directories and for the root unless
// the archive has a "./" entry. Pax global headers are not members:
// [Archive.GlobalHeaders] returns them, and their records are not merged
// into the members' headers (archive/tar does not merge them either).
//
// # Errors and limits
//
// A member whose data runs past the end of the archive, a sparse map
// that does not add up, and a hard link to nothing fail to open with an
// error matching [driver.ErrCorrupt]; see above for bytes that are not
// headers. The context, an I/O error of the blob and a limit fail the
// scan, and the next call scans again after the first two.
//
// The limits of [vfs.Options].Limits apply, and each error matches
// [driver.ErrLimit] and names the Limits field to raise:
//
//   - MaxEntries: the number of headers (members and global headers).
//     The scan fails.
//   - MaxNameLength: the length of every member name and link name,
//     long or not. The scan fails. A pax header or GNU long name is read
//     whole before its length is known, but one over 1 MiB is refused (an
//     error matching [driver.ErrLimit]), as archive/tar refuses it, so a
//     huge pax record costs at most 1 MiB, briefly.
//   - MaxFileSize: the size of a member. Opening that member fails; the
//     rest of the archive stays readable.
//
// The names and pax records an index keeps are capped at 256 MiB per
// archive, and a pax 1.0 sparse map at 16 MiB (errors matching
// [driver.ErrLimit]).
package taradapter
