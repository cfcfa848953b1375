package s3root

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyauth "github.com/aws/smithy-go/auth"
	smithyendpoints "github.com/aws/smithy-go/endpoints"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterRoot(&vfs.Root{Scheme: "s3", Also: []string{"s3+http", "s3+https"}, Open: open, Options: (*Options)(nil), Durable: true})
}

// Addressing chooses how a bucket is named in a request.
type Addressing int

const (
	// AddressingAuto is virtual-host style on AWS and path style on any
	// other endpoint; for s3+http(s), listings detect the style.
	AddressingAuto Addressing = iota
	// AddressingPath sends the bucket as the first path segment.
	AddressingPath
	// AddressingVirtualHost sends the bucket in the host name (for
	// s3+http(s): the URL's host names the bucket, the path is the key).
	AddressingVirtualHost
)

// Options configure the s3, s3+http and s3+https roots. Pass them in
// vfs.Options.Schemes under "s3" (or under one of the other two schemes to
// set that scheme alone). A nil *Options and zero fields mean the
// defaults; the package documentation says which source wins when a field
// is zero.
type Options struct {
	// Client, when set, is used as it is: Endpoint, Region, Anonymous,
	// Addressing and Config are ignored.
	Client *s3.Client
	// Config replaces config.LoadDefaultConfig as the base configuration.
	Config *aws.Config
	// Endpoint is the base URL of an S3-compatible server for s3: URLs,
	// such as "http://127.0.0.1:7070". s3+http(s) URLs carry their own.
	Endpoint string
	// Region signs the requests; on AWS it is only the first guess.
	Region string
	// Anonymous sends unsigned requests (public buckets).
	Anonymous bool
	// Addressing chooses path or virtual-host style.
	Addressing Addressing
	// Remote configures retries, the cache and the size of the first read.
	Remote remote.Options
}

func options(env *vfs.Env) *Options {
	if so := vfs.SchemeOptions[*Options](env); so != nil {
		return so
	}
	return &Options{}
}

func open(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	if err := ctx.Err(); err != nil {
		return driver.Location{}, err
	}
	opts := options(env)
	l := learnedFor(env.Cache)
	b := &Backend{scheme: u.Scheme, authority: u.Authority, retry: opts.Remote.Retry, addressing: opts.Addressing, learned: l}
	if u.Scheme == "s3" {
		b.bucket = u.Bucket()
	} else {
		scheme := strings.TrimPrefix(u.Scheme, "s3+")
		b.endpoint = scheme + "://" + u.Authority
		if _, err := url.Parse(b.endpoint); err != nil {
			return driver.Location{}, fmt.Errorf("endpoint %s: %w", b.endpoint, err)
		}
	}
	c, err := client(ctx, l, opts, b.endpoint != "")
	if err != nil {
		return driver.Location{}, err
	}
	b.client = c
	return driver.Location{Tree: remote.NewTree(b, env, opts.Remote), Path: u.Key()}, nil
}

// learned is what the s3 roots keep for the life of a vfs.Cache (one of
// its resources): the SDK clients, by what they were built from; the
// regions of AWS buckets, learnt from redirects; the addressing styles of
// s3+http(s) endpoints.
type learned struct {
	clients sync.Map // string -> *s3.Client
	regions sync.Map // bucket -> region
	styles  sync.Map // endpoint -> Addressing
}

// learnedKey keys the learned among the resources of a vfs.Cache.
type learnedKey struct{}

// learnedFor returns what the s3 roots learned with c.
func learnedFor(c *vfs.Cache) *learned {
	return c.Resource(learnedKey{}, func() any { return new(learned) }).(*learned)
}

// envVars are the variables that LoadDefaultConfig reads and that change
// which client is built.
var envVars = []string{
	"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL",
	"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
	"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_CONFIG_FILE",
	"AWS_SHARED_CREDENTIALS_FILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
	"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
	"AWS_EC2_METADATA_DISABLED",
}

// client returns the client of l for opts. custom says that the URL
// names its own endpoint (s3+http(s)).
func client(ctx context.Context, l *learned, opts *Options, custom bool) (*s3.Client, error) {
	if opts.Client != nil {
		return opts.Client, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%t\x00%s\x00%s\x00%t\x00%d\x00%p\x00", custom, opts.Endpoint, opts.Region, opts.Anonymous, opts.Addressing, opts.Config)
	if opts.Config == nil {
		for _, v := range envVars {
			fmt.Fprintf(h, "%s=%s\x00", v, os.Getenv(v))
		}
	}
	key := hex.EncodeToString(h.Sum(nil))
	if c, ok := l.clients.Load(key); ok {
		return c.(*s3.Client), nil
	}
	var cfg aws.Config
	if opts.Config != nil {
		cfg = opts.Config.Copy()
	} else {
		var err error
		// The client outlives this open: loading must not stop with ctx.
		cfg, err = config.LoadDefaultConfig(context.WithoutCancel(ctx))
		if err != nil {
			return nil, fmt.Errorf("loading the AWS configuration: %w", err)
		}
	}
	if opts.Region != "" {
		cfg.Region = opts.Region
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if opts.Anonymous {
		cfg.Credentials = aws.AnonymousCredentials{}
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		// Retries belong to roots/remote: one owner, never two.
		o.Retryer = aws.NopRetryer{}
		o.RetryMaxAttempts = 1
		// No x-amz-checksum-mode: range reads cannot be checked anyway.
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.DisableLogOutputChecksumValidationSkipped = true
		if opts.Endpoint != "" && !custom {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
		switch opts.Addressing {
		case AddressingPath:
			o.UsePathStyle = true
		case AddressingVirtualHost:
			o.UsePathStyle = false
		default:
			o.UsePathStyle = o.BaseEndpoint != nil && !custom
		}
	})
	actual, _ := l.clients.LoadOrStore(key, c)
	return actual.(*s3.Client), nil
}

// fixedEndpoint resolves every request to one URL: the endpoint of an
// s3+http(s) sub-URL, with the bucket appended in path style.
type fixedEndpoint struct{ u url.URL }

func (r fixedEndpoint) ResolveEndpoint(_ context.Context, params s3.EndpointParameters) (smithyendpoints.Endpoint, error) {
	// Sign as S3 does: SigV4 for "s3", with the path escaped once.
	var sp smithy.Properties
	smithyhttp.SetDisableDoubleEncoding(&sp, true)
	smithyhttp.SetSigV4SigningName(&sp, "s3")
	smithyhttp.SetSigV4SigningRegion(&sp, aws.ToString(params.Region))
	var props smithy.Properties
	smithyauth.SetAuthOptions(&props, []*smithyauth.Option{{SchemeID: "aws.auth#sigv4", SignerProperties: sp}})
	return smithyendpoints.Endpoint{URI: r.u, Headers: http.Header{}, Properties: props}, nil
}

// at returns a per-call option that sends the request to endpoint, with
// bucket as the first path segment when it is not empty.
func at(endpoint, bucket string) (func(*s3.Options), error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	if bucket != "" {
		u.Path = "/" + bucket
		u.RawPath = "/" + url.PathEscape(bucket)
	}
	r := fixedEndpoint{*u}
	return func(o *s3.Options) {
		o.EndpointResolverV2 = r
		o.BaseEndpoint = nil
	}, nil
}
