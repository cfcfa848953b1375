// Package gsroot registers the "gs" root: read access to Google Cloud
// Storage objects through cloud.google.com/go/storage, as trees of the
// roots/remote package (one request to open an object, reads through the
// block cache, every read pinned to the generation seen at open).
//
// "gs://bucket/a/b" names object "a/b" of bucket "bucket".
//
// # Configuration, and which source wins
//
// Options are read with vfs.SchemeOptions[*Options] under "gs"; nil means
// defaults.
//
//   - [Options.Client], a ready *storage.Client, is used as it is, and the
//     rest is ignored.
//   - STORAGE_EMULATOR_HOST, when set, sends every request to that
//     emulator, unauthenticated (the storage library does this itself).
//   - [Options.ClientOptions] are passed to storage.NewClient (an
//     endpoint, an HTTP client, credentials).
//   - [Options.Anonymous] sends unauthenticated requests
//     (option.WithoutAuthentication), for public buckets.
//   - Otherwise the Application Default Credentials
//     (GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, the metadata server).
//     When none can be found the requests are unauthenticated, so public
//     buckets still read.
//
// Clients are built once per (options, STORAGE_EMULATOR_HOST,
// GOOGLE_APPLICATION_CREDENTIALS) and shared by every open with the same
// vfs.Cache (they are resources of the cache).
//
// STORAGE_EMULATOR_HOST and GOOGLE_APPLICATION_CREDENTIALS are the storage
// library's own, documented configuration, which it reads; this package
// reads them itself only to tell clients apart, and reads no other
// variable. A program that wants none of the environment sets
// Options.Client.
//
// # Requests
//
// Opening an object is one XML API GET of a suffix range; its answer gives
// the size (Content-Range) and the generation (x-goog-generation). Reads
// after that ask for that generation, with the precondition
// ifGenerationMatch on it: an object replaced since open answers 412, or
// 404 for the pinned generation, and the read fails with an error
// matching driver.ErrModified (after a 404, one metadata request tells a
// replaced object, ErrModified, from a deleted one, fs.ErrNotExist).
// Objects are read as stored (ReadCompressed), so ranges of an object
// uploaded with Content-Encoding gzip are ranges of its gzip bytes. A
// directory is listed with the delimiter "/", page by page.
//
// Retries belong to the roots/remote layer ([Options.Remote]); the storage
// library's own retries are turned off (RetryNever), so a request is never
// retried twice over. 404 matches fs.ErrNotExist, 401 and 403
// fs.ErrPermission; 429 and 5xx are retried.
//
// # Directories
//
// As for S3: a name is a directory when some object starts with it and a
// "/"; an object whose name ends in "/" marks a directory (its bytes are not
// reachable); names that are not valid io/fs names are left out of
// listings; a directory wins over an object of the same name in a listing.
//
// # Escape hatches
//
// Trees are *remote.Tree values; their Backend is a *Backend, whose
// Bucket method returns the *storage.BucketHandle.
package gsroot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterRoot(&vfs.Root{Scheme: "gs", Open: open, Options: (*Options)(nil), Durable: true})
}

// Options configure the gs root. Pass them in vfs.Options.Schemes under
// "gs". A nil *Options and zero fields mean the defaults.
type Options struct {
	// Client, when set, is used as it is.
	Client *storage.Client
	// ClientOptions are passed to storage.NewClient.
	ClientOptions []option.ClientOption
	// Anonymous sends unauthenticated requests.
	Anonymous bool
	// Remote configures retries, the cache and the size of the first read.
	Remote remote.Options
}

func open(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	if err := ctx.Err(); err != nil {
		return driver.Location{}, err
	}
	opts := vfs.SchemeOptions[*Options](env)
	if opts == nil {
		opts = &Options{}
	}
	c, err := client(ctx, clientsFor(env.Cache), opts)
	if err != nil {
		return driver.Location{}, err
	}
	b := &Backend{
		bucket: c.Bucket(u.Bucket()).Retryer(storage.WithPolicy(storage.RetryNever)),
		name:   u.Bucket(),
		retry:  opts.Remote.Retry,
	}
	return driver.Location{Tree: remote.NewTree(b, env, opts.Remote), Path: u.Key()}, nil
}

type clientKey struct {
	opts        *Options // only when it carries ClientOptions
	anonymous   bool
	emulator    string
	credentials string
}

// clients holds the storage clients of a vfs.Cache (one of its resources)
// by what they were built from.
type clients struct{ m sync.Map } // clientKey -> *storage.Client

// clientsKey keys the clients among the resources of a vfs.Cache.
type clientsKey struct{}

// clientsFor returns the clients of c.
func clientsFor(c *vfs.Cache) *clients {
	return c.Resource(clientsKey{}, func() any { return new(clients) }).(*clients)
}

// client returns the client of cs for opts.
func client(ctx context.Context, cs *clients, opts *Options) (*storage.Client, error) {
	if opts.Client != nil {
		return opts.Client, nil
	}
	key := clientKey{anonymous: opts.Anonymous, emulator: os.Getenv("STORAGE_EMULATOR_HOST"), credentials: os.Getenv("GOOGLE_APPLICATION_CREDENTIALS")}
	if len(opts.ClientOptions) > 0 {
		key.opts = opts
	}
	if c, ok := cs.m.Load(key); ok {
		return c.(*storage.Client), nil
	}
	// The client outlives this open: it must not stop with ctx.
	bg := context.WithoutCancel(ctx)
	copts := slices.Clone(opts.ClientOptions)
	if opts.Anonymous {
		copts = append(copts, option.WithoutAuthentication())
	}
	c, err := storage.NewClient(bg, copts...)
	if err != nil && !opts.Anonymous {
		// No credentials to be found: public buckets still read.
		c, err = storage.NewClient(bg, append(copts, option.WithoutAuthentication())...)
	}
	if err != nil {
		return nil, fmt.Errorf("gs: creating the storage client: %w", err)
	}
	actual, loaded := cs.m.LoadOrStore(key, c)
	if loaded {
		c.Close()
	}
	return actual.(*storage.Client), nil
}

// Backend is the remote.Backend of one bucket.
type Backend struct {
	bucket *storage.BucketHandle
	name   string
	retry  remote.Retry
}

var _ remote.Backend = (*Backend)(nil)

// Bucket returns the bucket handle (with the library's retries off).
func (b *Backend) Bucket() *storage.BucketHandle { return b.bucket }

// Key returns the canonical URL of name.
func (b *Backend) Key(name string) string {
	u := vfs.SubURL{Scheme: "gs", HasAuthority: true, Authority: b.name, Path: "/"}
	return u.Join(name).String()
}

// Get reads name: a suffix when off < 0, else n bytes at off; pinned to
// generation version when it is not empty.
func (b *Backend) Get(ctx context.Context, name string, off, n int64, version string) (*remote.Response, error) {
	obj := b.bucket.Object(name).ReadCompressed(true)
	var gen int64 = -1
	if version != "" {
		g, err := strconv.ParseInt(version, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: bad generation %q", b.Key(name), version)
		}
		gen = g
		obj = obj.Generation(g).If(storage.Conditions{GenerationMatch: g})
	}
	length := n
	if off < 0 {
		length = -1
	}
	r, err := obj.NewRangeReader(ctx, off, length)
	if err != nil && off < 0 && code(err) == http.StatusRequestedRangeNotSatisfiable {
		// An empty object has no suffix to give: read it whole.
		r, err = obj.NewRangeReader(ctx, 0, -1)
	}
	if err != nil {
		return nil, b.mapErr(ctx, name, gen, err)
	}
	a := r.Attrs
	resp := &remote.Response{
		Body:    r,
		Start:   a.StartOffset,
		Length:  r.Remain(),
		Size:    a.Size,
		Version: strconv.FormatInt(a.Generation, 10),
		ModTime: a.LastModified,
	}
	if a.Generation <= 0 {
		resp.Version = ""
	}
	return resp, nil
}

// Put writes data as object name in one upload: the sidecar indexes of
// vfs.Options.Sidecar.
func (b *Backend) Put(ctx context.Context, name string, data []byte) error {
	w := b.bucket.Object(name).NewWriter(ctx)
	w.ContentType = "application/octet-stream"
	w.ChunkSize = 0 // one request, however large
	_, err := w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return b.mapErr(ctx, name, -1, err)
	}
	return nil
}

var _ remote.Putter = (*Backend)(nil)

func code(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

// mapErr translates a storage error about name into the errors of
// remote.Backend, keeping it in the chain. A pinned read that finds no
// object asks whether another generation is live.
func (b *Backend) mapErr(ctx context.Context, name string, gen int64, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	key := b.Key(name)
	c := code(err)
	notFound := errors.Is(err, storage.ErrObjectNotExist) || errors.Is(err, storage.ErrBucketNotExist) || c == http.StatusNotFound
	switch {
	case c == http.StatusPreconditionFailed:
		return fmt.Errorf("%s: %w: %w", key, driver.ErrModified, err)
	case notFound && gen > 0:
		attrs, aerr := b.bucket.Object(name).Attrs(ctx)
		if aerr == nil && attrs.Generation != gen {
			return fmt.Errorf("%s: generation %d replaced by %d: %w", key, gen, attrs.Generation, driver.ErrModified)
		}
		return fmt.Errorf("%s: %w: %w", key, fs.ErrNotExist, err)
	case notFound:
		return fmt.Errorf("%s: %w: %w", key, fs.ErrNotExist, err)
	case c == http.StatusForbidden || c == http.StatusUnauthorized:
		return fmt.Errorf("%s: %w: %w", key, fs.ErrPermission, err)
	case c == http.StatusTooManyRequests || c >= 500:
		return remote.Retryable(fmt.Errorf("%s: %w", key, err), retryAfter(err))
	}
	return fmt.Errorf("%s: %w", key, err)
}

func retryAfter(err error) time.Duration {
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Header == nil {
		return 0
	}
	return remote.RetryAfter(ge.Header)
}

// List lists directory dir ("" is the bucket's top) with the delimiter "/".
func (b *Backend) List(ctx context.Context, dir string) ([]fs.DirEntry, error) {
	var ents []fs.DirEntry
	err := b.retry.Do(ctx, func() error {
		var err error
		ents, err = b.list(ctx, dir)
		return err
	})
	return ents, err
}

func (b *Backend) list(ctx context.Context, dir string) ([]fs.DirEntry, error) {
	prefix := dir
	if prefix != "" {
		prefix += "/"
	}
	q := &storage.Query{Prefix: prefix, Delimiter: "/"}
	if err := q.SetAttrSelection([]string{"Name", "Size", "Updated", "Generation"}); err != nil {
		return nil, err
	}
	it := b.bucket.Objects(ctx, q)
	var ents []fs.DirEntry
	dirs := map[string]bool{}
	marker := false
	for {
		a, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, b.mapErr(ctx, cmp.Or(dir, "."), 0, err)
		}
		if a.Prefix != "" {
			base := strings.TrimSuffix(strings.TrimPrefix(a.Prefix, prefix), "/")
			if fsname.ValidBase(base) && !dirs[base] {
				dirs[base] = true
				ents = append(ents, &driver.FileInfo{FName: base, FMode: fs.ModeDir | 0o555})
			}
			continue
		}
		if a.Name == prefix {
			marker = true
			continue
		}
		base := strings.TrimPrefix(a.Name, prefix)
		if !fsname.ValidBase(base) {
			continue
		}
		ents = append(ents, &driver.FileInfo{FName: base, FSize: a.Size, FMode: 0o444, FModTime: a.Updated.Truncate(time.Second), FSys: strconv.FormatInt(a.Generation, 10)})
	}
	ents = slices.DeleteFunc(ents, func(e fs.DirEntry) bool { return !e.IsDir() && dirs[e.Name()] })
	if len(ents) == 0 && !marker && dir != "" {
		return nil, fmt.Errorf("%s: no such directory: %w", b.Key(dir), fs.ErrNotExist)
	}
	slices.SortFunc(ents, func(x, y fs.DirEntry) int { return strings.Compare(x.Name(), y.Name()) })
	return ents, nil
}
