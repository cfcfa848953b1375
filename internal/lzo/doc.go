// Package lzo decompresses LZO1X, the format of Markus Oberhumer's
// miniLZO and liblzo2 (lzo1x_1_compress, lzo1x_999_compress and the other
// LZO1X compressors all write it), as lzo1x_decompress_safe reads it.
// PyTables' HDF5 LZO filter stores its chunks this way.
//
// # Contracts
//
// Decompress reads one stream, up to its end-of-stream marker, and
// never returns more than max bytes nor
// allocates more than max bytes plus a small constant: a stream that would
// decode to more fails with an error matching driver.ErrLimit. A
// malformed stream (a truncated instruction, a match before the start of
// the output, a missing end marker) fails with an error
// matching driver.ErrCorrupt, never a panic. It is safe for concurrent
// use.
package lzo
