// Package hdf5adapter implements the hdf5: adapter: an HDF5 file as a tree
// whose directories are its groups and whose files are its datasets, read
// through the input's ReadAt without reading more of the file than a
// listing or a read needs. It is pure Go.
//
//	file:/d/x.h5|hdf5:              the root group (also what file:/d/x.h5 opens as)
//	file:/d/x.h5|hdf5:/grp/dset     one dataset
//
// Detection appends hdf5: to a file with the HDF5 signature at 0, 512,
// 1024, 2048 or 4096 (after a user block); opening searches every power
// of two below the file's size. Superblocks 0 to 3, object headers 1 and
// 2, old-style (symbol table) and new-style (compact and dense) groups,
// every datatype, contiguous, compact and chunked layouts with every chunk
// index (v1 B-tree, single chunk, implicit, fixed array, extensible array,
// v2 B-tree) and fill values are read. Messages shared between objects
// are followed, whether in a committed object header or stored once in
// the file's shared-message heap (the shared message table of the
// superblock extension, with list or B-tree indexes).
//
// # The tree
//
// A group is a directory (mode fs.ModeDir|0555); its Stat().Sys() is a
// *Group (inside a *vfs.Origin when read through a *vfs.FS). A dataset is
// a regular file (0444) whose bytes are its elements in C order, in the
// byte order the file stores them (a ">f8" dataset reads big endian), of
// size elements × element size; its Sys is a *Dataset, which describes
// shape, maximum shape, type (with h5py's NumPy dtype: a compound of two
// floats "r" and "i" is "<c8" or ">c16", as h5py reads it), layout,
// chunks, filters, fill value and attributes. Every fixed-size type reads
// as stored, as libhdf5 reads it with the file's own datatype as memory
// type: a fixed-length string keeps every stored byte (whatever follows
// the NUL of a NUL-terminated string, the trailing spaces of a
// space-padded one), and the bytes that no member of a compound covers
// read as the file holds them. (h5py's d[()] converts strings to NUL
// padding; decode them with the padding in DType.Padding.)
// ReadDir sorts by name. ModTime is the object's modification time when
// the file records one.
//
// Links:
//   - A hard or soft link to a group or dataset is listed as its target.
//     Soft links resolve inside the file, at most 40 for one link.
//   - A link to a group that is already on the path from the root (a
//     hard-link cycle such as /a/up → /, or a soft link to an ancestor)
//     is listed as a symbolic link (fs.ModeSymlink) whose Sys is a
//     *CycleLink, so that fs.WalkDir, which does not follow symbolic
//     links, visits each group once per path and ends. Stat, ReadDir and
//     Open of its name follow it, as for any symbolic link: "a/up/a" is
//     "a".
//   - An external link is listed as a symbolic link whose Sys is an
//     *ExternalLink (the file and path it names); it is not followed:
//     Stat and Open of it fail with fs.ErrNotExist.
//   - A soft link that leads nowhere (a missing target, a cycle of soft
//     links) is listed as a symbolic link whose Sys is a *SoftLink; Stat
//     and Open fail with fs.ErrNotExist.
//   - An object whose metadata does not parse is listed as an irregular
//     file (fs.ModeIrregular) whose Sys is an *Unreadable, so that one
//     bad object does not hide its siblings; Stat and Open of it fail.
//   - Committed datatypes, user-defined links and names that are not
//     valid io/fs names are not listed; Group.Omitted (in the Sys of
//     Stat) says which, and why.
//
// # Reading
//
// A read decodes only the chunks it touches: chunk indexes are searched
// (B-trees descend by coordinates, array indexes compute positions), not
// loaded whole, and each chunk is read in one ReadAt of its stored extent,
// so that over HTTP listing a file and reading one chunk cost a few
// requests. Decoded chunks are kept in env.Cache, bounded in bytes, under
// env.Key, the dataset's address and the chunk's coordinates. Reading a
// large chunked dataset row-major decodes each chunk once as long as one
// band of chunks (those with the same leading coordinates) fits in the
// cache. Chunks that are not stored and contiguous data never written read
// as the fill value. Through package array (Dataset.ArrayNode, "pipefs
// array") a dataset reads chunk by chunk in little-endian order.
//
// # Filters
//
// Chunks are decoded through their filter pipeline, every checksum a
// filter carries verified before the bytes are returned:
//
//	id     name         as written by
//	1      deflate      libhdf5 (zlib stream)
//	2      shuffle      libhdf5 (byte shuffle)
//	3      fletcher32   libhdf5 (checksum verified; the pre-1.6.3 form too)
//	4      szip         libhdf5 with libaec or szip: CCSDS 121.0-B (internal/aec)
//	5      nbit         libhdf5
//	6      scaleoffset  libhdf5
//	305    lzo          PyTables (LZO1X, internal/lzo; Adler-32 verified when present)
//	307    bzip2        PyTables, hdf5plugin
//	32000  lzf          h5py
//	32001  blosc        hdf5-blosc
//	32004  lz4          HDF5 lz4 plugin
//	32008  bitshuffle   bitshuffle (none, lz4, zstd)
//	32015  zstd         HDF5 zstd plugin
//
// Any other filter is refused when the dataset is read, with an error
// matching errors.ErrUnsupported that names its id and name (the
// registered name, or the one the file stores); the dataset is still
// listed and described.
//
// # Virtual datasets
//
// A virtual dataset (layout class 3) reads from its sources: each
// mapping pairs the elements of a source selection with those of a
// virtual selection, both in C order; elements no mapping covers, and the
// mappings whose source file or dataset does not exist, read as the fill
// value, as libhdf5 reads them. Selections may be "all" or hyperslabs
// (regular, or lists of blocks); point selections, unlimited selections
// (a dataset that grows with printf-named sources) and sources of another
// type than the dataset (other than the byte order of a number) are
// refused with errors.ErrUnsupported. Sources are read in the same file
// (".") or in the file of that relative name beside it, opened through
// the same pipeline (Env.URL resolved as a relative pipeline, with the
// same options); other files (an absolute name, a file opened outside a
// pipeline) are refused naming the file. Virtual datasets nest at most 8
// deep.
//
// Variable-length data and references are listed and described, but
// their bytes are pointers into the file's heaps: reading them fails with
// an error matching errors.ErrUnsupported. Variable-length strings read
// through array.Array.ReadStrings ("pipefs array --strings"); their
// attribute values are decoded.
//
// # Errors and limits
//
// Bytes that are wrong (a bad checksum, a structure past the end of the
// file, a B-tree or heap that points back at itself) give errors matching
// driver.ErrCorrupt; what this package does not read (external storage,
// files split by the family or multi drivers, VAX floats, filters this
// package does not decode, the virtual dataset mappings above) errors
// matching errors.ErrUnsupported, when the dataset is read (it is still
// listed and described: its shape, type, filters and fill value). Sizes
// read from the file are checked against vfs.Limits before anything is
// allocated from them: MaxDocument
// bounds one metadata structure and the variable-length data of one
// attribute, MaxChunk one chunk, MaxEntries the messages of an object,
// the links of a group, the attributes of an object and the records of a
// B-tree, MaxNameLength one name; errors past them match driver.ErrLimit.
// A filter never decodes to more than its chunk (plus the bytes the
// filters still to undo add); szip's padded scanlines take at most
// pixels-per-block times the chunk while they are decoded. The mappings
// of a virtual dataset are bounded by MaxEntries, and the runs of
// elements one mapping expands to by 2^20.
//
// The tree is safe for concurrent use.
package hdf5adapter
