// Package remote is what the remote roots (http, https, s3, s3+http,
// s3+https, gs) share: a driver.Tree over a small per-service Backend, with
// opening in one request, reads through the block cache, conditional reads
// pinned to the version seen at open, and retries.
//
// # Request economy
//
// Opening an object is one request and no HEAD: a suffix read of
// Options.SuffixSize bytes whose answer gives the size and the version
// (ETag or generation). Those bytes are pinned to the object's blob, so a
// zip's end records, and often its whole central directory, cost nothing
// more; the suffix size adapts upwards per tree to what archives needed.
// Later reads go through the block cache of the pipeline's vfs.Cache
// (cache.For), which fetches aligned blocks, coalesces adjacent ones and
// reads ahead on sequential reads, a large sequential read in parallel
// parts (cache.Config.Streams and PartSize, by default 16 of 2 MiB): one
// more request per part, so that a large object arrives at several
// responses' speed; every part is a conditional read like any other. The
// ranges archive readers declare
// (driver.Prefetch: a central directory, a member, a chunk) it fetches
// exactly, so that a remote archive costs the bytes its format needs. An archive reader that needed more than
// the first read calls Blob.GrowSuffix: the tree, and later opens of the
// same object with the same vfs.Cache (a small table keyed by the object's
// URL, a resource of the vfs.Cache), then read that much first.
// A server that sends the whole object at open (it ignored Range, or gave
// no size) has it read to the end once, into a spool that serves every
// later read of the object: in memory up to a quarter of the cache's
// budget (at most 64 MiB), beyond that in a temporary file (os.CreateTemp)
// that is removed when the tree and the blobs of the object are closed.
// The block cache counts no request and no bytes for what the spool
// serves (cache.LocalReader), so the counts say the object was fetched
// once. Such an answer is logged as a warning with the pipeline's
// vfs.Options.Logger, once per object and vfs.Cache, and
// Tree.IgnoredRange reports the first of a tree. A server
// that honours Range at open but not later has the bytes needed streamed
// from the start of its body, which is kept for the next sequential read.
//
// # Consistency
//
// Every read after open is conditional on the version seen at open. When
// the object changed, the read fails with an error matching driver.ErrModified
// (and fs.ErrNotExist too when it was deleted);
// bytes of two versions are never mixed, and cache keys carry the version.
// A blob is a driver.Fingerprinter giving that version (with the size), so
// the indexes adapters derive from it (vfs.Env.Key) are per version too: an
// object replaced by one of the same size and time is read anew. A server
// that gives no validator leaves only the size and time to tell. A blob is
// also a driver.Revalidator: Revalidate asks, with one request for the
// object's last byte conditional on that version, whether the object is
// still the one the blob reads.
//
// # Faults
//
// Errors marked retryable by the backend (5xx, 429, timeouts, resets,
// short bodies) are retried with jittered exponential backoff, honouring a
// Retry-After the backend passes on (capped at Retry.MaxDelay), up to
// Options.Retry.MaxAttempts. A short body is resumed from where it stopped,
// never returned as data; the requests of one range, resumed ones included,
// share the MaxAttempts bound.
//
// # Statistics
//
// Tree.Stats counts the requests, bytes, block hits and misses of every
// object of a tree; Tree.As reaches the backend. A Backend that is a
// VersionShower gives the version the FileInfo of an object reports (its
// Sys value); the encoded version stays in cache keys and fingerprints.
package remote
