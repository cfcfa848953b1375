// Package precomputedadapter registers the neuroglancer-precomputed:
// adapter of pipefs, which opens a neuroglancer precomputed volume:
//
//	https://h/vol/|neuroglancer-precomputed:
//
// Opening validates the info file and yields the volume's directory as
// stored (info, one directory per scale key). Stat(".").Sys() of the
// resulting FS is a *vfs.Origin whose Header is an *array.Node: a group
// whose children are the scale keys. [Describe] with a scale key (or
// Node.Child, array.OpenArray, or "pipefs array --scale KEY") gives that
// scale as an array, which "pipefs array --read" or "--box" reads.
//
// # Arrays
//
// A scale ([x, y, z, channel] in Fortran order) is presented as the 4-D
// C-order array [channel, z, y, x] with chunks [channels, cz, cy, cx]
// (chunk_sizes[0]). voxel_offset moves where the chunks' keys place them,
// not the array: index 0 of the array is voxel_offset. Chunks cut by the
// volume's upper edge, which are stored truncated, and chunks that are not
// stored read as the fill value 0 (precomputed has no other).
//
// # Chunk keys
//
// The adapter's tree is the volume's directory as stored; the chunks
// appear in it as follows (Array.ChunkKey gives the key of a chunk):
//
//   - Unsharded scales: one file a chunk in the scale's directory,
//     "x0-x1_y0-y1_z0-z1", its voxel box with voxel_offset added and
//     truncated at the volume's edge; a missing file is also looked for
//     with ".gz" appended (a gzip file, as CloudVolume writes them).
//     ChunkKey's inner coordinates are nil.
//   - Sharded scales ("sharding" of @type neuroglancer_uint64_sharded_v1):
//     the chunks are byte ranges of the files "<shard>.shard" in the scale's
//     directory (the shard number in lowercase hexadecimal, ceil(shard_bits/4)
//     digits). ChunkKey gives that file, and as inner coordinates the one
//     value [chunk id]: the compressed Morton code of the chunk's grid cell
//     [x, y, z], which the sharding hashes (identity or murmurhash3_x86_128,
//     after preshift_bits) to its shard and minishard.
//
// # Sharded reads
//
// A sharded scale's reader is an array.ExtentReader: a box read locates
// its chunks first, then reads neighbouring chunks of a shard with one
// request. Locating a chunk reads its shard's index (16 × 2^minishard_bits
// bytes at the start of the shard) and its minishard's index (raw or
// gzip), each with one exact range read, the first time; both are kept,
// decoded, in the pipeline's vfs.Cache, keyed by the input (vfs.Env.Key),
// the scale, the shard's name and the shard's version (its fingerprint,
// or its size and modification time), so that once a minishard is
// indexed, a chunk costs one read. Concurrent reads of one index fetch it
// once. A volume described outside a pipeline (Describe) keeps its
// indexes in vfs.DefaultCache under a name of its own. Chunks are
// gunzipped when the data_encoding is gzip; gzip members have their CRC-32
// checked.
//
// # Encodings
//
//   - raw: little-endian voxels, [x, y, z, channel] Fortran order, the
//     chunk truncated at the volume's edge (a full-size chunk is read too).
//   - jpeg: uint8, 1 or 3 channels; an image of any width and height whose
//     pixels, row after row, are the voxels in [x, y, z] order, its
//     components the channels. JPEG is lossy and has no checksum: values
//     may differ from another decoder's by a small amount.
//   - png: uint8 (bit depth up to 8) or uint16 (bit depth 16), 1 to 4
//     channels (gray, gray and alpha, RGB or palette, RGBA), laid out as
//     jpeg; the chunks' CRC-32 and the zlib Adler-32 are checked.
//   - compressed_segmentation: uint32 or uint64, any block size
//     (compressed_segmentation_block_size), any number of channels, in
//     neuroglancer's multi-channel layout; every offset and table index is
//     checked against the chunk.
//
// The image's size and components are checked against the chunk before
// it is decoded, so no header sizes an allocation beyond
// vfs.Limits.MaxChunk, which also bounds shard indexes, minishard indexes
// and stored chunks.
//
// # Refusals
//
// A scale whose encoding pipefs does not decode (compresso, fpzip, jxl,
// ...) or whose sharding names a hash or encoding it does not know is
// still described (Describe, "pipefs array", "pipefs stat"), its codecs
// naming them; reading a chunk of it fails with an error matching
// array.ErrUnsupported that names the encoding and the ones pipefs reads.
// Malformed metadata, indexes and chunks give errors matching
// driver.ErrCorrupt; sizes past the limits driver.ErrLimit.
//
// The array format "neuroglancer-precomputed" ([FormatPrecomputed]) is
// registered with package array, and the vfs format "neuroglancer
// precomputed" (an info file with a precomputed "@type", or a "type" and
// "scales"; see [Match]) for dataset detection.
package precomputedadapter
