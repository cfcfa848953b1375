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
// the last member that are not a member ("trailing garbage", zeros
// included), and a member whose CRC-32 or ISIZE differs from its data are
// errors matching vfs.ErrCorrupt.
//
// # Size and the first pass
//
// The decompressed size is not in the file: ISIZE is the size of one
// member modulo 2^32, so it is checked but never trusted. Open therefore
// decodes the whole stream once (the first pass), which verifies every
// member's CRC-32 and ISIZE and records a checkpoint about every MiB of
// output. The index is cached in the process, keyed by the canonical
// pipeline of the input with its size and modification time, so later
// opens of the same data skip the pass. On a remote input the pass reads
// the whole compressed object once, through the input's own caching.
//
// # Name, time, Sys
//
// The file is named by the member header's FNAME when it is a safe base
// name (no slash, backslash, control character, "." or ".."), else by the
// input's name without ".gz" (".tgz" becomes ".tar"). Its modification time
// is the header's MTIME when set, else the input's. Stat().Sys() returns
// the first member's *Header.
//
// # Limits
//
// Limits.MaxFileSize bounds the output; Limits.MaxRatio bounds the output
// of each member against its compressed size, and the whole output against
// the compressed bytes at the bottom of nested decompressors, so a bomb is
// refused as soon as the first pass goes past the bound, long before it
// decodes gigabytes. A name or comment longer than Limits.MaxNameLength,
// or an FEXTRA field longer than 64 KiB, is an error.
//
// # Concurrency and memory
//
// The returned blob's ReadAt is safe for concurrent use. Each concurrent
// read holds one decoder (about 110 KiB); the index holds about 32 KiB
// per checkpoint.
package gzipadapter
