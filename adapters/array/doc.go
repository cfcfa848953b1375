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
// decodes one chunk. Everything else is this package's and the same for
// every format: boxes with fill and cropping (ReadBox, ReadAll, WriteBox,
// WriteChunk), chunk walking, fixed-size string reads, the grid checks
// against the limits, the node's directory (Node.Tree), Node.Child, the
// adapter (AdapterOpen) and opening a pipeline's node (OpenNode,
// OpenArray).
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
// ReadBox, ReadAll and WriteBox read the chunks of a box concurrently:
// up to Array.Concurrency chunks (0: [DefaultConcurrency], 32) are
// fetched and decoded at once, and each is copied into its own part of
// the box as it arrives, so the bytes do not depend on the concurrency
// and memory beyond the box is at most Concurrency decoded chunks. The
// first chunk error cancels the reads in flight and is returned as is;
// a cancelled context gives the context's error. ReadStrings reads
// fixed-size strings that way too, and variable-length ones chunk by
// chunk.
package array
