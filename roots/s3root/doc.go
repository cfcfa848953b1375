// Package s3root registers the "s3", "s3+http" and "s3+https" roots: read
// access to objects in Amazon S3 and in S3-compatible servers, through
// aws-sdk-go-v2, as trees of the roots/remote package (one request to open
// an object, reads through the block cache, every read conditional on the
// ETag seen at open).
//
// # Names
//
// "s3://bucket/a/b" names key "a/b" of bucket "bucket" on AWS (or on the
// endpoint that the options or the environment give, see below).
//
// "s3+http://host:port/p" and "s3+https://host:port/p" name the
// S3-compatible endpoint http(s)://host:port. Its first path segment is the
// bucket when the endpoint uses path-style addressing; when the host itself
// names one bucket (virtual-host style), the whole path is the key. Reads
// do not need to know which: both styles send GET /p to the endpoint. A
// listing does: it tries path style first and, when the endpoint answers
// that the first segment is not a bucket, virtual-host style; what worked
// is remembered per endpoint in the pipeline's vfs.Cache. Listing the
// endpoint's root ("s3+http://host/") lists its buckets (ListBuckets)
// unless the endpoint is already known to be virtual-host style, in which
// case it lists the bucket's top level. [Options.Addressing] forces one
// style.
//
// # Configuration, and which source wins
//
// Options are an *Options in vfs.Options.Schemes under "s3", for s3,
// s3+http and s3+https alike; nil means defaults. For each
// setting the first of these that gives one is used:
//
//   - Client: [Options.Client], a ready *s3.Client, is used as it is (for
//     s3+http(s) its endpoint is replaced by the URL's on each call). The
//     settings below are then ignored.
//   - Endpoint: for s3+http(s), the URL's host and port, always. For s3,
//     [Options.Endpoint], then AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL,
//     then the shared config file's endpoint_url, then AWS itself.
//   - Region: [Options.Region], then AWS_REGION, then AWS_DEFAULT_REGION,
//     then the shared config file (AWS_PROFILE, AWS_CONFIG_FILE), then
//     "us-east-1". On AWS a bucket in another region is found anyway: the
//     first request that S3 refuses with the bucket's region in its
//     x-amz-bucket-region header is sent again there, and the region is
//     remembered per bucket in the pipeline's vfs.Cache, so it costs one
//     request once per cache.
//   - Credentials: [Options.Anonymous] sends unsigned requests; otherwise
//     [Options.Config]'s credentials when set, otherwise the SDK's default
//     chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE and
//     the shared files, web identity, SSO, container and EC2 roles).
//   - Addressing: [Options.Addressing]; by default virtual-host style on AWS
//     and path style on any other endpoint (the SDK chooses path style
//     by itself for bucket names that cannot be host names).
//   - [Options.Config], when set, replaces aws config.LoadDefaultConfig
//     as the base, and the environment is then not read.
//
// Clients are built once per (endpoint, region, credentials source,
// addressing) and shared by every open with the same vfs.Cache (they are
// resources of the cache).
//
// The AWS_* variables above are the SDK's own, documented configuration,
// which config.LoadDefaultConfig reads; this package reads them itself
// only to tell clients apart (a client is built again when they change).
// It reads no other variable: a program that wants none of the
// environment sets Options.Config or Options.Client.
//
// # Requests
//
// Opening an object is one GetObject of a suffix range ("Range:
// bytes=-65536"); its Content-Range gives the size and its ETag the version.
// Reads after that are range GETs with If-Match set to that ETag: an object
// overwritten since open fails with an error matching driver.ErrModified
// (HTTP 412). There is no HeadObject anywhere. A directory is listed with
// ListObjectsV2 and the delimiter "/", page by page.
//
// Retries belong to the roots/remote layer ([Options.Remote]): the SDK's
// own retryer is turned off, so a request is never retried twice over.
// Errors with HTTP 5xx, 429 and the S3 throttling codes (SlowDown, ...)
// are retried with jittered backoff; NoSuchKey, NoSuchBucket and 404 match
// fs.ErrNotExist; AccessDenied and 403 match fs.ErrPermission.
//
// # Directories
//
// S3 has keys, not directories: a name is a directory when some key starts
// with it and a "/". A key that ends in "/" ("a/", as consoles write to
// make a folder, with or without content) marks the directory "a": it
// makes "a" exist even when nothing else is under it, and its own bytes are
// not reachable. Keys that are not valid io/fs names ("a//b", "./x", a
// trailing "/" inside a listing's children) are left out of listings. When
// both a key "a" and keys under "a/" exist, the listing shows the directory
// "a"; opening "a" by name still reads the object.
//
// # Escape hatches
//
// Trees are *remote.Tree values; their Backend is a *Backend, whose
// Client method returns the *s3.Client.
package s3root
