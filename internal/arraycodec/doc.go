// Package arraycodec decodes the compressors and byte-level filters of
// chunked array formats (Zarr v2 and v3, N5): Blosc v1 frames (blosclz,
// lz4, lz4hc, snappy, zlib and zstd inside, byte and bit shuffle), the
// numcodecs lz4 framing, zlib, gzip, zstd, bzip2, xz and lzma, CRC-32C
// trailers, and the variable-length string layout of numcodecs.
//
// # Contracts
//
// Every function is pure: it reads its input, never modifies it, and
// returns a new slice. Every decoder takes max, the largest output it may
// produce, and fails with an error matching driver.ErrLimit rather than
// produce or allocate more: sizes written in headers (a Blosc frame's
// nbytes, the lz4 size prefix) are checked against max before any
// allocation. Malformed input gives an error matching driver.ErrCorrupt (and
// fs.ErrInvalid), never a panic. Functions are safe for concurrent use.
package arraycodec
