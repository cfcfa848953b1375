// Package zipadapter implements the zip: adapter of pipefs: it serves the
// members of a zip archive, read through a [driver.Blob], as a [driver.Tree].
//
// Importing the package registers the "zip" adapter scheme and the "zip"
// format signature (an end of central directory record at the end of the
// file, see [Match]) in [vfs.DefaultRegistry]. [Open] is the same core for
// programs that hold a blob and want an [*Archive] directly.
//
// The central directory is read as archive/zip reads it, record for record
// and field for field (zip64, data descriptors, comments, times from extra
// fields, archives with a prefix, self-extracting or with offsets fixed by
// "zip -A"), but in one read of its bytes and into a compact index: the
// base names are copied once into one string, in listing order, and what
// a listing does not show is decoded from its record when asked. Opening an archive of 200,000
// members allocates about 146 bytes a member, central directory included.
//
// Over a remote blob, opening a member declares the ranges it needs
// (driver.Prefetch): its local header, and with it the whole data of a
// member compressed, or stored in at most 1 MiB, so that opening and
// reading it costs one request. A larger stored member, or one opened
// with a driver.Unverified context to look at its first bytes (a deep
// listing's or serve's sniff), fetches only what is read, until reads in
// order have read 256 KiB of it: then the rest is fetched ahead. A sniff
// declares nothing: its local header is read through the blob's cache,
// in the block that also holds the first bytes the sniff reads next, so
// header and head cost one request. So a zip stored in a remote zip is
// opened from its end records alone, and its members' heads are sniffed
// without fetching them whole.
//
// The zip: adapter also keeps the central directory on disk
// (vfs.Env.DiskIndex, the index cache of package cache/disk), when the
// pipeline has a store there, the archive's Key names a durable version,
// and the directory was read in at most max(Limits.MaxDocument, 64 KiB):
// a later process opening the same version of the archive reads neither
// its end records nor its directory, only the members it reads (over
// HTTP, one request before the member's: the remote root's open). The
// directory's bytes are kept as read, and parsed at load as the archive's
// own are, with the same checks and limits; a kept directory that does
// not decode or parse is removed and the directory read from the archive
// again. [Open] keeps nothing. The directory is never a sidecar object
// (vfs.Options.Sidecar): reading it from the archive's tail costs what
// reading a sidecar would.
//
// # Random access, nothing extracted
//
// A STORED member is a section of the archive's blob ([driver.SectionBlob]):
// reading it reads the parent at an offset, with no copy and no buffer, so
// a zip stored in a zip stored in a zip costs no more than the innermost
// read. The CRC-32 of a STORED member is checked as archive/zip checks
// it (unless it is 0 with no data descriptor): reads that run from offset
// 0 to the end without a gap, in any chunk sizes (io.ReadAll, io.Copy, a
// sequential ReadAt loop), hash the bytes in place, and the read that
// reaches the end fails with an error matching driver.ErrCorrupt, without
// its bytes, when the hash does not match. A ReadAt that skips ahead
// turns the check off for that open member: random access (an archive
// read inside the archive, a range request) is served unchecked, and a
// byte read before the mismatch is known has already been returned. This
// is the one read path that pipefs does not verify: checking a random
// read of a stored member would mean reading the whole member first.
// pipefs cat and cp read members sequentially, so they check them.
//
// A DEFLATE member is decompressed as it is read, through the checkpoint
// index of internal/inflate: the first pass records a resume point about
// every MiB of output, and a later read at any offset resumes at the
// nearest one instead of decoding from the member's start. The index is
// shared by every open of the member with the same vfs.Cache (keyed by the
// archive's vfs.Env.Key, which holds its canonical pipeline and version,
// its size and modification time, and the member's name). The member's blob is a [driver.Streamer]: io.Copy of the
// file decodes it forward with one decoder. When a read reaches the
// declared size, the stream must end there and its CRC-32 must match the
// central directory (unless that CRC-32 is 0, which archive/zip also
// treats as "not set"), and a ReadAt that stops before the end decodes on
// to the next checkpoint the checked pass recorded, or to the member's
// end, and compares CRCs before it returns its bytes (see
// internal/inflate): a longer or shorter stream, a bad CRC-32 or
// malformed deflate data is an
// error matching [driver.ErrCorrupt], returned instead of the data, and every
// later read of that blob returns it too.
//
// # Other compression methods
//
// Two more methods resume inside a member. A Deflate64 member (method 9,
// decoded by internal/deflate64, the project's own decoder: DEFLATE with a
// 64 KiB window, lengths to 65538 and distances to 65536) resumes at
// checkpoints as DEFLATE does: the decoder's state at a block boundary
// (input bit offset and 64 KiB window). A Zstandard member (method 93,
// and 20, the id older writers use; github.com/klauspost/compress/zstd,
// with windows of at most Limits.MaxWindow) is decoded one frame at a
// time, each frame's compressed length read from its header and block
// headers, and resumes at a frame's start: a member written in frames
// (seekable Zstandard, or a writer that flushes frames) is read at random
// at the cost of a frame; a member of one frame decodes from its start.
// For both, the first full pass, the first ReadAt or a stream from
// offset 0, checks the member's size and CRC-32 and records a point about
// every MiB of output (more sparsely past 128 MiB: at most 128 points a
// member, 64 KiB each for Deflate64); later reads resume at the nearest
// point before them. A ReadAt returns its bytes only once that pass has
// checked the whole member (the first such read runs it, and concurrent
// reads wait for it). The points belong to the open blob: unlike
// DEFLATE's checkpoints, they are not shared through vfs.Cache.
//
// Members compressed with bzip2 (12, compress/bzip2), LZMA (14, with the
// zip LZMA header and with or without the end marker that flag bit 1
// announces; github.com/ulikunitz/xz/lzma) and XZ (95,
// github.com/ulikunitz/xz) are decoded forward (internal/streamblob): a
// read at or after where the last one stopped continues its decoder, an
// earlier one starts over from the member's start. These members have no
// checkpoints: a random read inside one decodes from its start, so an
// archive stored in such a member is read correctly but slowly. The
// output must be the declared size and its CRC-32 must match the central
// directory's (unless 0): the read that reaches the end reads on to the
// decoder's end and checks both, and a ReadAt that stops short of the end
// returns its bytes only once a pass has decoded the whole member and
// passed those checks (the first such read runs that pass).
//
// Every such member's blob is a [driver.Streamer], so io.Copy of the
// member, and a format detected inside it, decode it once; a stream
// delivers bytes as it decodes, but withholds the last ones of a member
// whose end does not check out. No byte of a bad member reaches a ReadAt.
// Errors match [driver.ErrCorrupt], and every later read returns them.
//
// PPMd (98) is not decoded: no Go implementation of its variant I rev. 1
// exists. Other methods (Shrink, Reduce, Implode, ...) are not decoded
// either. Opening such a member gives an error matching
// [errors.ErrUnsupported] that names the method by number and name and
// says which tools extract it (7z, bsdtar). Encrypted members
// (traditional ZipCrypto, WinZip AES, method 99, whose error names the key
// size and the method under it, and PKWARE strong encryption) are refused
// the same way on open: pipefs does not decrypt. Such members are still
// listed, and Stat describes them, with the *zip.FileHeader in Sys.
//
// # Concurrency and ownership
//
// An [*Archive] and the blobs it returns are safe for concurrent use.
// Concurrent reads of one DEFLATE member each hold their own decoder,
// resumed at the nearest checkpoint. The blob returned for a DEFLATE member
// implements io.Closer, which returns its decoders to a shared pool (it
// can still be read afterwards).
//
// The archive does not own the blob it reads: it never closes it, and the
// blob must stay readable while the archive or any member blob is in use.
// [Archive.As] reaches an archive/zip *zip.Reader of the archive, made on
// the first call (it reads the central directory again).
//
// # Names
//
// Names follow io/fs: slash-separated, no leading or trailing slash. As
// bsdtar does, leading "./" elements are dropped ("./a.txt" is "a.txt") and
// a trailing "/" marks a directory. Every name fs.ValidPath then accepts is
// listed but for a NUL or a backslash (testing/fstest refuses those): io/fs
// names are not OS paths, so "a:stream" and "C:/x" are ordinary names (a
// program that writes members to disk must check them for its OS). A
// member whose name fs.ValidPath refuses (a ".." or empty element, a
// leading "/", invalid UTF-8) or that holds a NUL or a backslash is
// never reachable: it is left out of the tree, [Archive.Omitted] reports it
// with its offset, and [Archive.Unreachable] lists it. Every parent directory of a member
// exists, whether or not the archive has an entry for it; directories and
// the root have mode fs.ModeDir|0555, files the permission bits of their
// header (0444 when it has none).
//
// Duplicate names follow one rule, that of extracting in order: the last
// central directory entry with a name wins. When a file and a directory
// have the same name, whether the directory is an entry ("a/") or implied
// by a member ("a/b"), the directory wins. Hidden entries are listed by
// [Archive.Unreachable].
//
// Symbolic links (entries whose mode says so) are listed and described
// with fs.ModeSymlink, and never followed: opening one gives an error that
// matches both [driver.ErrUnsafePath] and fs.ErrInvalid. [Archive.ReadLink]
// (fs.ReadLink of a vfs.FS) reads a link's target, the bytes of its
// member, at most driver.MaxLinkTarget of them. Stat().Sys() of a
// member, link or explicit directory returns its *zip.FileHeader, as
// archive/zip reads it, new at each call; it is nil for the root and for
// implied directories.
//
// # Limits
//
// The limits of [vfs.Options].Limits apply, and each error matches
// [driver.ErrLimit] and names the Limits field to raise:
//
//   - MaxEntries: the number of central directory records, counted as
//     they are read, before anything is allocated for them. [Open] fails.
//   - MaxDocument: the central directory, from its start to the end of the
//     archive, is read in one piece when it is within this size; a larger
//     one is read as its records need, into a buffer at most about twice
//     the size of the records read.
//   - MaxNameLength: the length of every name in the central directory.
//     [Open] fails.
//   - MaxFileSize: the declared uncompressed size of a member. Opening
//     that member fails; the rest of the archive stays readable.
//   - MaxRatio: the declared uncompressed size over the compressed size of
//     a DEFLATE member. Opening that member fails. For the other methods,
//     which code long runs far beyond DEFLATE's 1032:1, the declared size
//     must be within MaxRatio times the compressed size only past
//     RatioFloor, as for a .bz2, .xz or .zst file.
//   - MaxWindow: the dictionary an LZMA member asks for (at most its
//     size: the output never reaches further back), the LZMA2 dictionary
//     of every block of an XZ member (read from the member's index and
//     block headers when it is opened; MaxWindow plus the member's size,
//     as the xz adapter allows), and the window of every Zstandard frame.
//     Opening the member, or reading a frame over it, fails.
//
// No member yields more than its declared size, so these limits bound
// the work and the memory of every read: Deflate64 decodes in about 450
// KiB, bzip2 in about 4 MB, and LZMA, XZ and Zstandard in their
// dictionary or window.
//
// Entries whose bytes overlap (from local header to the end of the
// compressed data, as the central directory declares them), or overlap the
// central directory, make [Open] fail with an error matching
// [driver.ErrCorrupt] that names both: this is the "better zip bomb", which
// reuses one compressed kernel for many entries. Sizes and offsets that
// point past the end of the archive, and truncation anywhere, are errors
// matching [driver.ErrCorrupt].
package zipadapter
