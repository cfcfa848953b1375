// Package inflate serves random access into DEFLATE data (RFC 1951): a gzip
// file, a zip member, any sequence of raw DEFLATE streams in a [driver.Blob].
//
// # Checkpoints
//
// The first decode of a stream records a checkpoint, zran-style, about
// every [Options.Spacing] bytes of output (default [DefaultSpacing]): the
// compressed bit offset of a DEFLATE block boundary, the 32 KiB window of
// output before it, and the running CRC-32 of its member. A later read at
// offset off resumes at the last checkpoint at or before off and decodes at
// most about Spacing bytes before it reaches off; it never decodes from the
// start again. The index is built lazily: a read past the indexed part
// extends it on its way, so a first sequential read builds it for free.
// [Stream.Stream] is that sequential read as an io.ReadCloser (for
// driver.Streamer): one decoder read forward from an offset, which records
// checkpoints and, at the end, the stream's size.
//
// A member's start is a checkpoint without a window when it lies Spacing
// bytes of output or of input past the last one, so the index grows with
// the data, never with the number of members: a million empty gzip
// members cost a point per Spacing bytes of their headers. The [Framer]
// reads each member's trailer and the next header through the decoder's
// own input buffer, so crossing a member boundary reads nothing twice,
// and a stream of members inside another decompressed stream reads that
// stream once, forward, in time linear in its size.
//
// The checkpoints of github.com/klauspost/compress/flate v1.20.3 report a
// wrong compressed offset once a stream has passed a stored block (the
// stored-block path counts its buffered bytes twice). This package keeps
// the library unpatched: it counts the compressed bytes the decoder really
// consumed, derives the few bit offsets the checkpoint can be at, and keeps
// the one that decodes to the bytes the first pass produced after it (the
// first 4 KiB, or fewer at the end of a member). A checkpoint that no
// candidate reproduces is dropped, and the next block boundary is tried.
//
// # Sharing and memory
//
// Indexes are entries of the vfs.Cache given in [Options].Cache, keyed by
// the caller's key (the canonical pipeline of the input with its size and
// modification time), so every open of the same data with the same cache
// reuses them. An index costs the cache 1 KiB plus the windows of its
// checkpoints (32 KiB each), counted with vfs.Cache.Grow as it grows; the
// cache's byte budget bounds them together with its other entries. An
// index evicted stays usable by the streams that hold it. A [Stream] holds a few idle decoders (cursors) for the
// reads of one open file: a read that starts at or after where an idle
// cursor stopped continues it, so io.Copy runs at the speed of the
// underlying decoder, and a full sequential read runs in constant memory
// (one decoder, its 64 KiB input buffer, and the index). Each concurrent
// ReadAt holds its own decoder; at most [maxIdle] are kept per stream.
//
// # Two cores
//
// A [Stream.Stream] from offset 0 of more than 4 MiB of compressed data,
// copied through WriteTo with GOMAXPROCS of 2 or more, decodes on two cores
// (parallel.go). The caller's decoder (A) decodes from the start; a helper
// (B) decodes segments ahead of it, each starting about 12 MiB of output
// (3 to 12 MiB of input, at the ratio B last saw) past where A will
// resume. With no index, B finds a block boundary by trial and decodes
// from there the way rapidgzip does, with a marker inflater (marker.go)
// whose output leaves the unknown window before its start as references;
// as soon as the last 32 KiB of its output hold no reference, B goes on
// with the library's decoder from that block boundary, at the library's
// speed. With an index (a second read, or one loaded from the disk cache),
// B starts at a checkpoint with its window: no search, no references. B
// decodes until A reaches its segment's start, then stops at its next
// block end, so the split follows the decoders' real speeds.
//
// B's output is used only when A ends a block at exactly B's start bit
// (the drift above is derived exactly at every block end), or, for a
// segment that starts at a checkpoint, at the checkpoint's output offset
// (a checkpoint's bit offset may sit in the padding of a stored block's
// header, which decodes the same); the references
// are then resolved from A's window, the output is checked against the
// limits block by block as A would have, and A resumes where B stopped. B
// never decodes a member's final block. Anything else (a false start, an
// error, a limit) drops B's segment and leaves A to decode it, so the
// output and errors are the sequential ones. B works one segment ahead of
// the one A is heading for, so neither waits for the other; it holds at
// most three segments' output (16 MiB each at most: the one A writes, the
// one ready, the one B decodes), 7 MiB of input and the scratch for
// references (16 MiB), beyond the constant memory of the sequential read.
//
// # Verification and limits
//
// The CRC-32 and size of every member are handed to a [Framer] when its
// DEFLATE data ends; resumed decoders carry the CRC from their checkpoint,
// so the check runs whatever the read pattern, whenever a read reaches the
// end of a member. The index records which members have passed that
// check (spans of output; [Index.Verified] is the checked prefix): the
// checkpoints inside them hold the CRC-32 of checked output.
// [Stream.ReadAt] returns its bytes only once a check covers them: it
// decodes on to the next checkpoint in a checked member and compares
// CRCs, or, in a member no pass has checked, to the member's end (once
// for all of a stream's readers, from the furthest checkpoint known, so
// that a check a deadline cut short makes progress the next time); a
// mismatch returns no bytes. The decoder stops at the end of the read's
// member, and what it decoded past the read is kept for the next read (up
// to two spacings, at most 8 MiB). Output a stream has checked once is not
// checked again by its later reads (decoding the same input from a
// checkpoint is deterministic), so sequential reads stay linear however
// far apart the checkpoints lie. Since a read decodes on to its check, a
// limit that the member's later output passes (Limits.MaxFileSize,
// MaxRatio) fails reads of its start too. A read whose context comes from
// driver.Unverified skips the check (format detection). A stream from
// [Stream.Stream] delivers output as it decodes and fails at the end of a
// member that does not check out. Corrupt or truncated data gives an error matching
// driver.ErrCorrupt. Output beyond Limits.MaxFileSize, or more than
// Limits.MaxRatio times the compressed bytes consumed (plus 64 KiB), gives
// an error matching driver.ErrLimit as soon as the decoder gets there. When
// the input blob is itself decompressed (it implements [Compressed]), the
// ratio is also checked against the compressed bytes at the bottom of the
// nest, which stops a bomb hidden in a gzip inside a gzip.
package inflate
