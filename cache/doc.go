// Package cache is the range-read cache shared by every remote root, and by
// any layer that wants one.
//
// A remote object is read through a [Blob]: reads are split into aligned
// blocks of Config.BlockSize bytes held as entries of a vfs.Cache, each
// costing its length in bytes. [For] gives the block cache of a vfs.Cache
// (the remote roots use the one of the pipeline's Env), so that blocks share
// one byte budget with the indexes and other derived data held there and
// two vfs.Caches share no blocks; [New] makes one with a vfs.Cache of its
// own. What the budget does not count: the bytes of a fetch still under way
// (a flight), which enter the vfs.Cache block by block as they arrive, and
// the bytes pinned to a Blob (Blob.Pin), which live as long as the Blob. A
// block is fetched once however many goroutines ask for it, adjacent
// missing blocks are fetched by one range request, independent runs of
// missing blocks are fetched in parallel, and readahead grows on
// sequential reads (doubling, and to at least four times the read) and
// stays off for random ones.
//
// # Parallel readahead
//
// Once a sequential read's readahead reaches Config.PartSize, the read no
// longer waits for it: the readahead is fetched in the background as parts
// of PartSize bytes, each one range request, up to Config.Streams at once
// per Blob, and each later read of the sequence issues the parts its
// progress makes room for and waits only for the blocks it needs. One
// response of an object store carries a few tens of MB/s after 20-50 ms;
// several carry several times that, so a large sequential read (cat, cp,
// serve, a mount, a program's io.Copy) runs at the store's speed, not one
// response's. A read that breaks the sequence stops it. Reads inside a
// declared range (Blob.Prefetch) are not read ahead in parts.
//
// The rule that bounds the bytes in flight: the parts in flight of every
// Blob of a Cache hold at most a quarter of its vfs.Cache's budget, and
// those of one Blob at most Streams parts and twice its readahead (at
// most Config.MaxReadahead) past its read; but the part holding or following a
// read's missing blocks, when none is on its way, is always issued, as a
// read's own readahead always was, so that the parts of a sequence, and
// its requests, do not depend on timing. A part runs under the context of
// the read that issued it: cancelling that context stops every part it
// issued. Parts read through the same Source as every read, conditional
// on the version the Blob was opened at.
//
// # Memory of a long sequential read
//
// A sequential read of an object larger than twice MaxReadahead (32 MiB
// by default), or than an eighth of the vfs.Cache's budget, drops the
// blocks it has passed, once its readahead reaches a part: such an object
// is more than its readahead holds, and would fill the cache for a second
// read that a copy or a stream never makes. So what a long read holds is
// its readahead, at most twice MaxReadahead (32 MiB by
// default) plus a part and the read itself, whatever the object's size:
// cat of a 512 MiB object over loopback peaks at 126 MB of RSS (581 MB
// when it kept its blocks), and runs 1.5 times faster. A second read of
// the object fetches it again; a smaller object stays cached.
//
// Where a reader knows exactly which bytes it needs (a zip's central
// directory from its end record, a member from its header, an HDF5 chunk
// from its index), it declares them with Blob.Prefetch, and they are
// fetched exactly, byte for byte, in one request: a span, held in the same
// vfs.Cache and byte budget as the blocks and served to every later read
// of the object (spans are keyed by object, like blocks). Reads inside a
// declared range that is not all held fetch up to its end, never past it,
// and never aligned. Declared ranges that follow one another (members read
// in order) are read ahead, so that they cost a few requests, not one
// each; see Blob.Prefetch for the rules.
//
// Keys name the object and its version (the canonical URL and the ETag or
// generation), so a cached block never outlives the version it was read
// from: a changed object gets a new key, and its old blocks age out.
//
// Hits, misses, requests and bytes fetched are counted in a [Stats] that
// the owner of the Blob passes in (one per layer or per object, as it
// likes).
//
// # Concurrency
//
// A Cache and its Blobs are safe for concurrent use. A fetch runs under the
// context of the read that started it; a read that waits for another's
// fetch stops waiting when its own context is done, and retries when the
// fetch it waited for failed only because the other reader's context was.
package cache
