package s3root

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

// Backend is the remote.Backend of one s3 bucket or one s3+http(s)
// endpoint. For s3 the names are keys of the bucket; for s3+http(s) they
// are the URL path below the endpoint, whose first segment is the bucket
// in path style.
type Backend struct {
	client     *s3.Client
	scheme     string // s3, s3+http, s3+https
	authority  string // bucket (s3) or host[:port]
	bucket     string // s3 only
	endpoint   string // s3+http(s) only: http(s)://host[:port]
	addressing Addressing
	retry      remote.Retry
	learned    *learned
}

var _ remote.Backend = (*Backend)(nil)

// Client returns the SDK client.
func (b *Backend) Client() *s3.Client { return b.client }

// Key returns the canonical URL of name.
func (b *Backend) Key(name string) string {
	u := vfs.SubURL{Scheme: b.scheme, HasAuthority: true, Authority: b.authority, Path: "/"}
	return u.Join(name).String()
}

// call runs f with the per-call options that address name's bucket: for
// s3, the bucket's region when it is known; for s3+http(s), the
// endpoint. On AWS, an answer that names another region is followed once.
func (b *Backend) call(ctx context.Context, bucket string, f func(...func(*s3.Options)) error) error {
	if b.endpoint != "" {
		opt, err := at(b.endpoint, bucket)
		if err != nil {
			return err
		}
		return f(opt)
	}
	var opts []func(*s3.Options)
	known, _ := b.learned.regions.Load(b.bucket)
	if known != nil {
		opts = append(opts, withRegion(known.(string)))
	}
	err := f(opts...)
	if err == nil {
		return nil
	}
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.Response == nil {
		return err
	}
	region := re.Response.Header.Get("X-Amz-Bucket-Region")
	current := b.client.Options().Region
	if known != nil {
		current = known.(string)
	}
	if region == "" || region == current {
		return err
	}
	b.learned.regions.Store(b.bucket, region)
	return f(withRegion(region))
}

func withRegion(region string) func(*s3.Options) {
	return func(o *s3.Options) { o.Region = region }
}

// Get reads name: a suffix when off < 0, else n bytes at off, conditional
// on version (an ETag) when it is not empty.
func (b *Backend) Get(ctx context.Context, name string, off, n int64, version string) (*remote.Response, error) {
	bucket, key := b.locate(name)
	bucketOnly := b.endpoint != "" && !strings.Contains(name, "/")
	if bucketOnly && b.style() == AddressingPath {
		return nil, fmt.Errorf("%s: a bucket, not an object: %w", b.Key(name), fs.ErrNotExist)
	}
	in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if off < 0 {
		in.Range = aws.String("bytes=" + strconv.FormatInt(off, 10))
	} else if n > 0 {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	}
	if version != "" {
		in.IfMatch = aws.String(version)
	}
	var out *s3.GetObjectOutput
	get := func(opts ...func(*s3.Options)) error {
		var err error
		out, err = b.client.GetObject(ctx, in, opts...)
		return err
	}
	err := b.call(ctx, "", get)
	if err != nil && off < 0 && status(err) == http.StatusRequestedRangeNotSatisfiable {
		// An empty object has no suffix to give: read it whole.
		in.Range = nil
		err = b.call(ctx, "", get)
	}
	if err != nil {
		return nil, b.mapErr(name, err)
	}
	if bucketOnly && out.ETag == nil {
		// GET /name answered without an ETag: a path-style endpoint
		// listed bucket name.
		out.Body.Close()
		b.learned.styles.Store(b.endpoint, AddressingPath)
		return nil, fmt.Errorf("%s: a bucket, not an object: %w", b.Key(name), fs.ErrNotExist)
	}
	resp := &remote.Response{Body: out.Body, Start: 0, Length: -1, Size: -1, Version: aws.ToString(out.ETag)}
	if out.LastModified != nil {
		resp.ModTime = *out.LastModified
	}
	if out.ContentLength != nil {
		resp.Length = *out.ContentLength
	}
	if cr := aws.ToString(out.ContentRange); cr != "" {
		start, end, size, ok := remote.ParseContentRange(cr)
		if !ok {
			out.Body.Close()
			return nil, fmt.Errorf("%s: bad Content-Range %q", b.Key(name), cr)
		}
		resp.Start, resp.Length, resp.Size = start, end-start, size
	} else if resp.Length >= 0 {
		resp.Size = resp.Length // the whole object
	}
	return resp, nil
}

// Put writes data as object name with PutObject: the sidecar indexes of
// vfs.Options.Sidecar.
func (b *Backend) Put(ctx context.Context, name string, data []byte) error {
	bucket, key := b.locate(name)
	err := b.call(ctx, "", func(opts ...func(*s3.Options)) error {
		_, err := b.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(key),
			Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
			ContentType: aws.String("application/octet-stream"),
		}, opts...)
		return err
	})
	if err != nil {
		return b.mapErr(name, err)
	}
	return nil
}

var _ remote.Putter = (*Backend)(nil)

// locate returns the bucket and key of name. For s3+http(s) the key is
// the whole name and the request goes to the endpoint's root: GET /name is
// the same request in both addressing styles. The bucket is then only what
// the SDK needs to accept the input.
func (b *Backend) locate(name string) (bucket, key string) {
	if b.endpoint == "" {
		return b.bucket, name
	}
	first, _, _ := strings.Cut(name, "/")
	return first, name
}

// List lists directory dir ("" is the root) with ListObjectsV2 and the
// delimiter "/".
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
	if b.endpoint == "" {
		return b.listIn(ctx, b.bucket, "", dir)
	}
	style := b.style()
	if dir == "" {
		if style == AddressingVirtualHost {
			return b.listIn(ctx, "", "", "")
		}
		return b.listBuckets(ctx)
	}
	bucket, rest, _ := strings.Cut(dir, "/")
	if style == AddressingVirtualHost {
		return b.listIn(ctx, "", "", dir)
	}
	ents, err := b.listIn(ctx, bucket, bucket, rest)
	if err == nil || style == AddressingPath {
		if err == nil {
			b.learned.styles.Store(b.endpoint, AddressingPath)
		}
		return ents, err
	}
	if ctx.Err() != nil || errors.Is(err, fs.ErrPermission) || remote.IsRetryable(err) {
		return nil, err
	}
	// Not a bucket of a path-style endpoint: perhaps the host names the
	// bucket. Only a listing with entries proves it.
	vents, verr := b.listIn(ctx, "", "", dir)
	if verr == nil && len(vents) > 0 {
		b.learned.styles.Store(b.endpoint, AddressingVirtualHost)
		return vents, nil
	}
	return nil, err
}

func (b *Backend) style() Addressing {
	if b.addressing != AddressingAuto {
		return b.addressing
	}
	if s, ok := b.learned.styles.Load(b.endpoint); ok {
		return s.(Addressing)
	}
	return AddressingAuto
}

// listIn lists dir (a name of the tree, "" for its root) as the keys
// under prefix in bucket. For s3+http(s), bucket is put in the endpoint
// URL (path style) or is "" (virtual-host style); prefixName is the part
// of dir that is the bucket rather than the key.
func (b *Backend) listIn(ctx context.Context, bucket, bucketName, dir string) ([]fs.DirEntry, error) {
	prefix := dir
	if prefix != "" {
		prefix += "/"
	}
	name := dir
	if bucketName != "" {
		name = path.Join(bucketName, dir)
	}
	in := &s3.ListObjectsV2Input{Bucket: aws.String(b.bucket), Prefix: aws.String(prefix), Delimiter: aws.String("/")}
	if b.endpoint != "" {
		in.Bucket = aws.String(cmp.Or(bucketName, "bucket"))
	}
	var ents []fs.DirEntry
	seen := map[string]bool{}
	marker := false
	var token *string
	for {
		in.ContinuationToken = token
		var out *s3.ListObjectsV2Output
		err := b.call(ctx, bucket, func(opts ...func(*s3.Options)) error {
			var err error
			out, err = b.client.ListObjectsV2(ctx, in, opts...)
			return err
		})
		if err != nil {
			return nil, b.mapErr(name, err)
		}
		for _, p := range out.CommonPrefixes {
			base := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(p.Prefix), prefix), "/")
			if !fsname.ValidBase(base) || seen[base] {
				continue
			}
			seen[base] = true
			ents = append(ents, &driver.FileInfo{FName: base, FMode: fs.ModeDir | 0o555})
		}
		for _, o := range out.Contents {
			key := aws.ToString(o.Key)
			if key == prefix {
				marker = true // the directory's own marker
				continue
			}
			base := strings.TrimPrefix(key, prefix)
			if !fsname.ValidBase(base) {
				continue
			}
			fi := &driver.FileInfo{FName: base, FSize: aws.ToInt64(o.Size), FMode: 0o444, FSys: aws.ToString(o.ETag)}
			if o.LastModified != nil {
				fi.FModTime = o.LastModified.Truncate(time.Second) // as in Last-Modified
			}
			ents = append(ents, fi)
		}
		if !aws.ToBool(out.IsTruncated) || out.NextContinuationToken == nil {
			break
		}
		token = out.NextContinuationToken
	}
	// A directory wins over an object of the same name.
	ents = slices.DeleteFunc(ents, func(e fs.DirEntry) bool { return !e.IsDir() && seen[e.Name()] })
	if len(ents) == 0 && !marker && dir != "" {
		// Nothing under dir: an object of that name is not a directory.
		in := &s3.ListObjectsV2Input{Bucket: in.Bucket, Prefix: aws.String(dir), MaxKeys: aws.Int32(1)}
		var out *s3.ListObjectsV2Output
		err := b.call(ctx, bucket, func(opts ...func(*s3.Options)) error {
			var err error
			out, err = b.client.ListObjectsV2(ctx, in, opts...)
			return err
		})
		if err == nil && len(out.Contents) > 0 && aws.ToString(out.Contents[0].Key) == dir {
			return nil, fmt.Errorf("%s: %w", b.Key(name), driver.ErrNotDir)
		}
		return nil, fmt.Errorf("%s: no such directory: %w", b.Key(name), fs.ErrNotExist)
	}
	slices.SortFunc(ents, func(x, y fs.DirEntry) int { return strings.Compare(x.Name(), y.Name()) })
	return ents, nil
}

// listBuckets lists the buckets of an s3+http(s) endpoint as directories.
func (b *Backend) listBuckets(ctx context.Context) ([]fs.DirEntry, error) {
	var ents []fs.DirEntry
	in := &s3.ListBucketsInput{}
	for {
		var out *s3.ListBucketsOutput
		err := b.call(ctx, "", func(opts ...func(*s3.Options)) error {
			var err error
			out, err = b.client.ListBuckets(ctx, in, opts...)
			return err
		})
		if err != nil {
			return nil, b.mapErr(".", err)
		}
		for _, bk := range out.Buckets {
			name := aws.ToString(bk.Name)
			if !fsname.ValidBase(name) {
				continue
			}
			fi := &driver.FileInfo{FName: name, FMode: fs.ModeDir | 0o555}
			if bk.CreationDate != nil {
				fi.FModTime = *bk.CreationDate
			}
			ents = append(ents, fi)
		}
		if aws.ToString(out.ContinuationToken) == "" {
			break
		}
		in.ContinuationToken = out.ContinuationToken
	}
	slices.SortFunc(ents, func(x, y fs.DirEntry) int { return strings.Compare(x.Name(), y.Name()) })
	return ents, nil
}

// status returns the HTTP status of an SDK error, 0 when there is none.
func status(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// mapErr translates an SDK error about name into the errors of
// remote.Backend, keeping the SDK error in the chain.
func (b *Backend) mapErr(name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	code := ""
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	st := status(err)
	key := b.Key(name)
	switch {
	case code == "PreconditionFailed" || st == http.StatusPreconditionFailed:
		return fmt.Errorf("%s: %w: %w", key, driver.ErrModified, err)
	case code == "NoSuchKey" || code == "NoSuchBucket" || code == "NotFound" || st == http.StatusNotFound:
		return fmt.Errorf("%s: %w: %w", key, fs.ErrNotExist, err)
	case code == "AccessDenied" || code == "AllAccessDisabled" || code == "Forbidden" || st == http.StatusForbidden:
		return fmt.Errorf("%s: %w: %w", key, fs.ErrPermission, err)
	case st == http.StatusTooManyRequests || st >= 500 || retryableCodes[code]:
		return remote.Retryable(fmt.Errorf("%s: %w", key, err), retryAfter(err))
	}
	return fmt.Errorf("%s: %w", key, err)
}

// retryableCodes are the S3 error codes of transient failures.
var retryableCodes = map[string]bool{
	"SlowDown": true, "Throttling": true, "ThrottlingException": true, "RequestTimeout": true,
	"InternalError": true, "ServiceUnavailable": true,
	"RequestThrottled": true, "TooManyRequestsException": true,
}

// retryAfter returns the Retry-After of an error's HTTP answer.
func retryAfter(err error) time.Duration {
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.Response == nil {
		return 0
	}
	return remote.RetryAfter(re.Response.Header)
}
