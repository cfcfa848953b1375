// Package httproot registers the "http:" and "https:" roots: read-only
// access to files on web servers through range GETs.
//
// # Names
//
// A URL whose path does not end in "/" names a file. One that ends in "/"
// names a directory: files beneath it can be opened by name (the names are
// percent-encoded onto its path), but it cannot be listed, since HTTP has no
// listing; ReadDir fails with an error matching errors.ErrUnsupported. The
// query of the URL is sent with every request, also for the files opened
// beneath a directory URL, so signed and token URLs keep working.
//
// # Requests
//
// Opening a file costs one request and no HEAD: a suffix range GET
// ("Range: bytes=-65536") whose Content-Range gives the size, and whose
// bytes are pinned (they hold a zip's end records). Later reads are range
// GETs through the block cache of package cache (see package remote). Every
// request sends "Accept-Encoding: identity".
//
// # Consistency
//
// Reads after open are conditional on the validators seen at open:
//
//   - a strong ETag is sent as If-Match;
//   - a weak ETag cannot be used with If-Match (which compares strongly), so
//     Last-Modified is sent as If-Unmodified-Since, and an answer whose weak
//     ETag differs from the one seen at open is refused too;
//   - with Last-Modified only, If-Unmodified-Since (a change within the same
//     second goes unnoticed);
//   - with neither, no precondition is possible: only a change of size is
//     detected. Such servers get no consistency promise.
//
// A 412 answer, a changed validator or a changed size fail the read with an
// error matching driver.ErrModified; bytes of two versions are never mixed,
// and cache keys carry the validators and the size. A file's FileInfo
// reports, as its Sys value, the ETag, or the Last-Modified date when
// there is no ETag (see Backend.ShowVersion).
//
// # Faults and odd servers
//
// 5xx, 408 and 429 answers (honouring Retry-After), timeouts (see
// Options.Timeout), connection resets and bodies cut short are retried with
// jittered backoff up to remote.Options.Retry; a cut body is resumed from
// where it stopped. 404 and 410 match fs.ErrNotExist, 401 and 403
// fs.ErrPermission. A 416 answer to the suffix read of an empty file gives
// an empty file.
//
// A server that answers a range request with 200 and the whole body is
// remembered (per scheme, host and port, in the pipeline's vfs.Cache; see
// Ranging), and logged as a warning with vfs.Options.Logger, once per
// object and vfs.Cache (see remote.Tree.IgnoredRange). The whole body that
// arrives at open is kept, in memory up to a quarter of the cache's budget
// (at most 64 MiB) and beyond that in a temporary file removed when the
// pipeline is closed, and serves every later read: the file crosses the
// network once. A body without Content-Length is read to its end. A server
// that sends Content-Encoding: gzip despite Accept-Encoding: identity is
// treated as one that ignores Range, and its body is decoded: the file is
// the decoded bytes. Other content codings fail with errors.ErrUnsupported.
//
// # Options
//
// A *Options in vfs.Options.Schemes under "http" or "https" sets the
// *http.Client, the per-attempt timeout and the remote.Options (retries,
// cache, first-read size). Every request honours the context of its call.
//
// # Escape hatches
//
// The tree of a stage is a *remote.Tree: its Stats method counts requests,
// bytes, hits and misses, and its As method sets a **Backend.
package httproot
