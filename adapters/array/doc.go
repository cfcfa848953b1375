// Package array is the typed view of chunked arrays that the array
// adapters share (zarr:, zarr2:, zarr3: in zarradapter, n5: in n5adapter,
// neuroglancer-precomputed: in precomputedadapter): it describes a node
// (array or group), reads chunks, boxes and strings of an array, and
// yields the node's directory as an adapter's result.
//
// # Formats: where a new array format plugs in
//
// A format is a [Format]: Name, and Describe, which reads a node's
// metadata from a [Source] and returns its [Node], with for an array an
// [Array] whose Reader (a [ChunkReader], and a [StringReader] for formats
// with variable-length strings) maps chunk coordinates to store keys and
// decodes one chunk; a format whose chunks are byte ranges of larger
// objects makes it an [ExtentReader] too (see Concurrency). Everything
// else is this package's and the same for every format: boxes with fill
// and cropping (ReadBox, ReadAll, WriteBox, WriteChunk), chunk walking,
// fixed-size string reads, the grid checks against the limits, the
// node's directory (Node.Tree), Node.Child, the adapter (AdapterOpen) and
// opening a pipeline's node (OpenNode, OpenArray).
//
// A format package, in its init function:
//
//   - registers the Format with [Register];
//   - registers its vfs adapter: vfs.RegisterAdapter(&vfs.Adapter{Scheme:
//     name, OpenDir: AdapterOpen(name)});
//   - registers a dataset vfs.Format for detection (Dataset: true, Input:
//     vfs.KindDirectory, a MatchDir such as [HasFile]), so that OpenNode
//     and the CLI's labels find directories of the format.
//
// All three go to vfs.DefaultRegistry. The array formats of a registry
// are kept in it (vfs.Registry.Value), beside its schemes and formats,
// and this package keeps none of its own: a program that opens pipelines
// with a Registry of its own (vfs.Options.Registry) adds there, with
// [RegisterIn], the array formats of the adapters it registers, and
// [Source.Registry] names the registry a description looks formats up
// in.
//
// Nothing in this package names a format.
//
// # Describing
//
// [Describe] describes the node at a path of a driver.Tree in a named
// format and returns a [Node]: format, node type, attributes, a group's
// children, and for arrays an [Array]: shape, chunk shape (and shard
// shape), data type, fill value, dimension names, codecs. It validates
// what it can: an unsupported codec, data type, chunk grid or key encoding
// gives an error matching [ErrUnsupported] (errors.ErrUnsupported) that
// names it; malformed metadata an error matching driver.ErrCorrupt;
// shapes whose element count or chunk size overflow, or exceed the
// limits, an error matching driver.ErrLimit.
//
// # Limits
//
// vfs.Limits.MaxDocument bounds a metadata file and vfs.Limits.MaxChunk
// the decoded size of one chunk (and of one shard's index): sizes written
// in frames and headers never size an allocation beyond it. The adapters
// take them from their vfs.Env; Describe from its lim argument (nil: the
// defaults).
//
// # Layout of what is read
//
// Every read returns elements in C order (last axis fastest), little
// endian: U as UTF-32LE code points, S and V raw bytes, bool one byte.
// ReadBox, ReadAll, WriteBox and WriteChunk write bools as 0 or 1.
// Variable-length strings and objects have no raw form: reading them
// that way fails with ErrUnsupported. ReadStrings reads string arrays
// (variable-length ones through the format's StringReader, and fixed-size
// U and S) as Go strings. A format whose storage order differs presents
// its arrays in C order (N5 and precomputed reverse their axes; see their
// packages).
//
// # Chunks and keys
//
// The read grid is Array.ChunkShape: for a sharded array, the inner
// chunks. [Array.ChunkKey] gives the store key of a chunk (and the inner
// coordinates within its shard), relative to the array's directory.
// [Array.ReadChunk] decodes one chunk at its full shape; a chunk that is
// not stored reads as fill.
//
// # The store view
//
// The adapters yield [Node.Tree]: the node's directory as stored, whose
// Stat(".").Sys() is the *Node ([NodeOf] finds it inside the *vfs.Origin
// that a *vfs.FS wraps it in). [OpenNode] and [OpenArray] open a pipeline
// and return its node, detecting the format of a plain directory among the
// registry's dataset formats. [FSTree] reads any fs.FS as a driver.Tree.
//
// # Concurrency
//
// A Node and its Array are immutable after Describe and safe for
// concurrent use; reads go through the driver.Tree the node was described
// in, which must stay open. A format's ChunkReader must therefore be safe
// for concurrent use.
//
// ReadBox, ReadAll and WriteBox read the chunks of a box concurrently,
// and copy each chunk into its own part of the box as it is decoded, so
// the bytes do not depend on the concurrency or the timing. The first
// chunk error cancels the reads in flight and is returned as is; a
// cancelled context gives the context's error. ReadStrings reads
// fixed-size strings that way too, and variable-length ones chunk by
// chunk.
//
// A box read has n reads in flight at once: Array.Concurrency (0:
// [DefaultConcurrency], 64), but no more than fit in Array.InFlight (0:
// [DefaultInFlight], 64 MiB) at twice ChunkBytes each, and at least one:
//
//	n = max(1, min(Concurrency, InFlight / (2 × ChunkBytes)))
//
// so that chunks of 16 KiB are read 64 at once, and chunks of 4 MiB 8 at
// once.
//
// A format whose chunks are byte ranges of larger objects (the chunks of
// an HDF5 file, the inner chunks of the shards of a Zarr v3 array) gives
// an [ExtentReader]. A box read of it first locates its chunks (up to
// 16,384 at a time; n lookups at once, each walking its share of the
// chunks in order, those of one object together, so that the parts of
// the index that far-apart chunks need are fetched together). It then
// groups the chunks of each object, in the order of their offsets, into
// segments of chunks that begin at most 64 KiB after the end of those
// before, and cuts each segment, at chunk boundaries, into runs of about
// equal spans of S to 2S bytes (one run for a segment smaller than 2S),
// each read with one request:
//
//	S = min(max(stored bytes of the box / n, 512 KiB), (InFlight / n − 2 × ChunkBytes) / 2)
//
// so that a box's chunks take about n requests, fewer when they hold less
// than n × 512 KiB, more when S is held down by InFlight (1,024 HDF5
// chunks of 9.5 MB in all take 2 requests to open the file, one round of
// 17 B-tree nodes and one of 20 runs).
// Runs depend only on where the chunks lie: the requests of a read do
// not depend on the timing. Up to n runs are read at once, but no more
// than fit in InFlight at 2 × 512 KiB + 2 × ChunkBytes each (62 for
// chunks of 16 KiB), n being that number in the formula for S; each
// decodes its chunks one after the other.
//
// The rule that bounds the bytes in flight: beyond the box, which ReadBox
// returns whole, a box read holds at most InFlight bytes of chunks. A
// chunk read holds one chunk's stored and decoded bytes, 2 × ChunkBytes,
// and n of them fit in InFlight; a run in flight holds at most 2S + one
// chunk stored, and one chunk decoded, and n × (2S + 2 × ChunkBytes) <=
// InFlight. That is for chunks stored in no more bytes than they decode
// to (compressed or raw); a chunk stored larger (at most MaxChunk) counts
// its stored size instead, and a chunk larger than InFlight / 2 is read
// alone. The bound is on live bytes: between collections the Go heap
// grows to about twice what is live (GOGC). The stored bytes of a remote
// store also pass through the block cache of the pipeline's vfs.Cache,
// whose own budget bounds what it keeps.
package array
