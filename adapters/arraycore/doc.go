// Package arraycore is the typed view of chunked arrays shared by the
// zarr:, zarr2:, zarr3:, n5: and neuroglancer-precomputed: adapters: it
// describes a node (array or group), maps chunk coordinates to store keys,
// decodes chunks and reads whole arrays or boxes of them.
//
// # Describing
//
// [Describe] reads a node's metadata from a driver.Tree (zarr.json;
// .zarray, .zgroup and .zattrs; attributes.json; a precomputed info file)
// and returns a [Node]: format, node type, attributes, a group's children,
// and for arrays an [Array]: shape, chunk shape (and shard shape), data
// type, fill value, dimension names, codecs. It validates what it can: an
// unsupported codec, data type, chunk grid or key encoding gives an error
// matching [ErrUnsupported] (errors.ErrUnsupported) that names it;
// malformed metadata an error matching driver.ErrCorrupt; shapes whose
// element count or chunk size overflow, or exceed [Limits], an error
// matching driver.ErrLimit. Zarr v3 fails on unknown keys and codecs unless
// they say "must_understand": false. A Zarr v3 group's inline consolidated
// metadata gives its children; a Zarr v2 store's .zmetadata is used only
// when the store cannot be listed (it may be stale).
//
// # Layout of what is read
//
// Every read returns elements in C order (last axis fastest), little
// endian: U as UTF-32LE code points, S and V raw bytes, bool one byte.
// ReadBox, ReadAll, WriteBox and WriteChunk write bools as 0 or 1.
// Variable-length strings and objects have no raw form: reading them
// that way fails with ErrUnsupported. ReadStrings reads string arrays
// (Zarr v3 string and bytes, Zarr v2 object arrays with vlen-utf8,
// vlen-bytes or json2, and fixed-size U and S) as Go strings.
//
// N5 stores its first axis fastest and big endian; it is presented with
// its axes reversed (shape = reverse(dimensions)), as zarr-python did, so
// its blocks need only byte swapping. A precomputed scale ([x, y, z,
// channel] in Fortran order) is presented as the 4-D C-order array
// [channel, z, y, x], with chunks [channels, cz, cy, cx]; truncated edge
// chunks are padded with the fill value.
//
// # Chunks and keys
//
// The read grid is Array.ChunkShape: for a sharded Zarr v3 array, the
// inner chunks. [Array.ChunkKey] gives the store key of a chunk (and the
// inner coordinates within its shard), relative to the array's directory:
// "c/1/0" or "1.0" (v3 default and v2 encodings), "0.1" or "0/1" (v2
// separators), "x/y/z" block paths (N5), "x0-x1_y0-y1_z0-z1"
// (precomputed). [Array.ReadChunk] decodes one chunk at its full shape;
// a chunk that is not stored reads as fill. Shards are read with two range
// reads: the index (cached for the last 256 shards of an array) and the
// inner chunk. Every range in an index is checked against the shard's
// size, and every decoded size against the chunk's: sizes written in
// frames and headers never size an allocation beyond Limits.MaxChunkBytes.
//
// Codecs: Zarr v3 bytes (either endian), transpose, numcodecs.delta,
// gzip, zstd, blosc, crc32c and sharding_indexed (index at the end or the
// start, nested shards); Zarr v2 compressors zlib, gzip, bz2, zstd, lz4,
// blosc, lzma (xz and legacy), filters shuffle, delta, fixedscaleoffset,
// bitround, quantize, astype, crc32, adler32, crc32c, and vlen-utf8,
// vlen-bytes and json2 for ReadStrings; N5 raw, gzip
// (and zlib), bzip2, xz, blosc and zstd; precomputed raw (plain or .gz).
// See package arraycodec for the decoders.
//
// # The store view and the CLI
//
// The adapters yield [Node.Tree]: the node's directory as stored, whose
// Stat(".").Sys() is the *Node ([NodeOf] finds it inside the *vfs.Origin
// that a *vfs.FS wraps it in). [OpenNode] and [OpenArray] open a pipeline
// and return its node, detecting the format of a plain directory;
// [WriteDescription], [ParseBox], [ParseChunk], [Array.WriteBox],
// [Array.WriteChunk] and [Label] are what a command line needs.
//
// # Concurrency
//
// A Node and its Array are immutable after Describe and safe for
// concurrent use; reads go through the driver.Tree the node was described
// in, which must stay open.
package arraycore
