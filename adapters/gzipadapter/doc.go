// Package gzipadapter registers the "gzip:" adapter and the gzip format
// signature (1f 8b 08) with vfs. Import it for its side effects:
//
//	import _ "github.com/pipefs/pipefs/adapters/gzipadapter"
//
// "file:/d/x.gz|gzip:" is the decompressed bytes of x.gz, as a file with
// random access: ReadAt at any offset resumes at the nearest checkpoint of
// the DEFLATE index (see internal/inflate), never at the start.
//
// # Format
//
// A gzip file is one or more members (RFC 1952), decompressed as one
// stream, as gzip -d does. Member headers may carry FEXTRA, FNAME, FCOMMENT
// and FHCRC (whose CRC-16 is checked). A reserved flag bit, a compression
// method other than 8, a bad header CRC, a truncated stream, bytes after
// the last member that are not a member ("trailing garbage"; zero bytes
// there are padding, as gzip -t, GNU tar and bsdtar take them), and a
// member whose CRC-32 or ISIZE differs from its data are
// errors matching driver.ErrCorrupt.
//
// Only wrong bytes are corrupt: a read stopped by its context returns the
// context's error, and an error of the input (an I/O error, a failing
// outer decoder) is returned unchanged, wherever it stops the decoder,
// in the DEFLATE data, a trailer or the next header.
//
// Any number of members decodes in time linear in the input and in
// bounded memory: member trailers and headers are read through the
// decoder's input buffer, and the index holds a point per spacing of
// input or output, not one per member. The 4,000,000 empty members of the
// Go CVE-2022-30631 input, gzipped once more, read through "|gzip:|gzip:"
// in a few seconds (BenchmarkManyMembersNested).
//
// # Verification
//
// No byte reaches the caller before a CRC-32 vouches for it:
//
//   - ReadAt decodes on from the end of the read to the next checkpoint
//     of the checked part of the index, and compares its running CRC-32
//     with the one the checked pass recorded there; with no such
//     checkpoint ahead (a member no pass has checked yet), it decodes to
//     the member's trailer, which checks CRC-32 and ISIZE (building the
//     index on the way: the first read of a cold file costs a pass over
//     its member). A read that fails its check returns no bytes and an
//     error matching driver.ErrCorrupt. The output decoded past the read
//     (up to two spacings) is kept for the reads that follow it, so a
//     sequential reader decodes each byte once; a random read decodes
//     about one spacing more than it would unchecked (1 MiB by default).
//   - The head kept on disk holds the first checkpoint's CRC-32, so a read
//     of the stream's start in a later process checks without loading
//     the index.
//   - Stream (io.Copy, pipefs cat of a .gz) and the first pass deliver
//     the output as they decode it, and fail at the trailer of a member
//     whose CRC-32 or ISIZE is wrong: the output before it is not
//     withheld (pipefs cat holds 16 MiB back, and cat --verify checks the
//     whole file first).
//   - An index is kept (in the cache across opens, on disk across
//     processes) as checked only when every member passed its trailer; a
//     pass that fails keeps none.
//   - Format detection reads the start unchecked (driver.Unverified):
//     those bytes choose an adapter and reach no caller.
//
// # BGZF
//
// A file whose first member carries the BC subfield of BGZF (bgzip of
// htslib, the blocked gzip of genomics: BAM, tabix-indexed VCF and BED)
// is read through its block table, with no index to build: the first
// Stat().Size() or ReadAt walks the members by their BSIZE, reading only
// each header and ISIZE trailer, which gives the size without decoding
// anything, and a ReadAt then decodes only the blocks (at most 64 KiB
// each) that it covers, with one read of the input per block, checking
// each block's CRC-32 and ISIZE. The block decoded last is kept for the
// next read. A file that turns out not to be BGZF throughout (a member
// without BC, a block past the end of the input, an ISIZE over 64 KiB) is
// read as any gzip stream, and so is one whose blocks hold less than
// 1 KiB of output on average past the first 1024 (the table costs 24
// bytes per block with output; bgzip writes blocks of 65280 bytes). The
// table is the open file's own, not cached: walking it reads three small
// ranges per block. Streaming (io.Copy) decodes a BGZF file forward as
// any gzip stream.
//
// # Size and the first pass
//
// The decompressed size is not in the file: ISIZE is the size of one
// member modulo 2^32, so it is checked but never trusted. Opening reads
// only the first member header; nothing is decoded. The first pass over
// the stream, whichever read makes it, verifies every member's CRC-32 and
// ISIZE, records a checkpoint about every [Options].Spacing bytes of
// output, and learns the size:
//
//   - The blob is a [driver.Streamer], so io.Copy of the file (pipefs cat)
//     decodes it once, forward, at the speed of the decoder, building the
//     index as it goes.
//   - Stat().Size() runs the pass on its first call if no pass has
//     finished yet, and remembers the answer. It runs with the values of
//     the open's context but not its cancellation (a FileInfo has no
//     context). When the stream is bad, Size returns Limits.MaxFileSize
//     rather than the bytes decoded before the fault, so that a reader
//     that trusts the size reads on and gets the error: bad data is never
//     silently cut short. File.Read asks for the size, io.Copy does not.
//   - ReadAt at an offset past the indexed part decodes up to it from the
//     last checkpoint, extending the index.
//
// Opening needs the input's size (the last member ends where the input
// ends), so a gzip inside another decompressed stream (x.gz.gz, a .gz in
// a .tar.gz) runs the outer stream's pass at open.
//
// The index is cached in the pipeline's vfs.Cache, keyed by the input's
// vfs.Env.Key (its canonical pipeline and version: ETag, generation, inode)
// with its size and modification time and the checkpoint spacing, so later opens of the same data with the same
// spacing reuse it; it counts against the cache's byte budget. On a remote
// input the pass reads the whole compressed object once, through the
// input's own caching.
//
// The index is kept on disk too (vfs.Env.DiskIndex, the index cache of
// package cache/disk), when the pipeline has a store there and the
// input's Key names a durable version: once complete, when a pass reaches
// the end of the stream, and as far as it goes when the stream is closed
// after a partial pass (a tar scan ends at the archive's end marker), with
// a small head beside it: the first member's header and the output size.
// A later process reads the head at open, so that nothing is read from
// the stream, and loads the checkpoints, which may be megabytes of
// windows, only before it decodes past the first of them, streams, or is
// asked its size (the checkpoints' size, which must be the head's): a
// listing that a kept tar table answers loads none. It then reads and
// decodes from the checkpoints instead of from the start. What is kept
// is checked at load (order, offsets within the input, window sizes, the
// head against the index); what does not decode is removed.
// With vfs.Options.Sidecar the head and the checkpoints are also shared
// as sidecar objects beside the archive in its bucket.
//
// # Options
//
// The checkpoint spacing is the one option: a *[Options] under the "gzip"
// key of vfs.Options.Schemes (default 1 MiB).
//
// # Name, time, Sys
//
// The file is named by the member header's FNAME when it is a safe base
// name (no slash, backslash, control character, "." or ".."), else by the
// input's name without ".gz" (".tgz" becomes ".tar"). Its modification time
// is the header's MTIME when set, else the input's. Stat().Sys() returns
// the first member's header, a *[gzip.Header] of compress/gzip, whose Name
// and Comment are decoded from ISO 8859-1 when they are not UTF-8.
//
// # Limits
//
// Limits.MaxFileSize bounds the output; Limits.MaxRatio bounds the output
// of each member against its compressed size, and the whole output against
// the compressed bytes at the bottom of nested decompressors, so a bomb is
// refused as soon as the first pass goes past the bound, long before it
// decodes gigabytes; the read that gets there returns an error matching
// driver.ErrLimit. A name or comment longer than Limits.MaxNameLength,
// or an FEXTRA field longer than 64 KiB, is an error.
//
// # Concurrency and memory
//
// The returned blob's ReadAt is safe for concurrent use. Each concurrent
// read holds one decoder (about 110 KiB); the index holds about 32 KiB
// per checkpoint.
package gzipadapter
