// Package aec decodes the Adaptive Entropy Coder of CCSDS 121.0-B (the
// Rice coder of "lossless data compression"), as libaec's aec_decode
// reads it, and the szip framing on top of it that libaec's szip
// compatibility layer (SZ_BufftoBuffDecompress) and HDF5's szip filter
// use.
//
// Decode reads a stream of coded data sets of BlockSize samples of
// BitsPerSample bits, grouped into reference sample intervals of RSI
// blocks: each block is a zero run, second extension, split sample (k
// from 0 to 2^id-3) or uncompressed block, with the unit-delay predictor
// and the mapping of CCSDS 121.0-B 4 undone when Preprocess is set. It
// reads unsigned samples with libaec's default identifier lengths; the
// flags the szip layer never sets (signed samples, 3-byte samples,
// restricted codes for small samples, RSIs padded to a byte) are not
// read.
//
// Szip undoes SZ_BufftoBuffDecompress: samples of 32 and 64 bits are
// coded as byte planes of 8-bit samples and interleaved back, and a
// scanline whose pixel count is not a multiple of the block size is
// coded padded to whole blocks, the padding dropped.
//
// # Contracts
//
// The caller says how many bytes the data decodes to, and that many are
// returned: nothing is allocated beyond them and a constant. A stream
// that ends before that many samples, or holds an impossible code (a
// second-extension code past the table, a zero run past the end of its
// interval, a sample larger than BitsPerSample bits), fails with an error
// matching driver.ErrCorrupt; parameters outside what libaec accepts fail
// with an error matching driver.ErrCorrupt too. Bits after the last
// sample are ignored, as libaec ignores them. Functions never panic and
// are safe for concurrent use.
package aec
