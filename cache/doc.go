// Package cache is the range-read cache shared by every remote root, and by
// any layer that wants one.
//
// A remote object is read through a [Blob]: reads are split into aligned
// blocks of Config.BlockSize bytes held in one process-wide LRU bounded in
// bytes (the block count times the block size, since the LRU counts
// entries). A block is fetched once however many goroutines ask for it,
// adjacent missing blocks are fetched by one range request, independent
// runs of missing blocks are fetched in parallel, and readahead doubles on
// sequential reads and stays off for random ones.
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
