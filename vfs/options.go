package vfs

import (
	"log/slog"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs/driver"
)

// Options configure how a pipeline is opened. A nil *Options means the
// defaults, and so does the zero value of every field.
type Options struct {
	// Registry holds the schemes and formats to use. Nil means
	// DefaultRegistry, where the imported drivers register themselves.
	Registry *Registry

	// Cache holds what is kept between opens: fetched blocks, derived
	// indexes, SDK clients. Nil means the shared DefaultCache. Pipelines
	// opened with different caches share no state.
	Cache *Cache

	// Disk is the store of derived indexes kept on disk across processes
	// (see Env.DiskIndex and Env.DiskObject). Nil means none: indexes are
	// kept in Cache only, for the life of the process. The library
	// chooses no directory of its own; a program that wants the one the
	// pipefs command uses opens it with disk.Open(disk.DefaultDir()).
	Disk *disk.Store
	// Sidecar shares the same indexes through the object store itself:
	// each is kept as a sidecar object beside the archive's object in its
	// bucket, so that every machine reading the archive finds the index
	// one machine derived. It is off by default, since it reads, and with
	// SidecarWrite writes, objects the pipeline does not name. See
	// SidecarMode and Env.DiskIndex.
	Sidecar SidecarMode

	// Limits bound what hostile input can make the library do.
	Limits Limits

	// Logger receives the warnings of the pipelines opened with these
	// options: a server that ignores Range requests, a sidecar index that
	// cannot be read or written. Each is logged once per Cache (see
	// Env.Warn). Nil means none: the library then logs nothing; it never
	// uses log/slog's default logger.
	Logger *slog.Logger

	// NoDetect turns off format auto-detection: OpenFS of a container file
	// fails with ErrNotDir instead of appending the adapter its signature
	// names, and a directory that holds a store (OCDBT, Icechunk) opens as
	// a plain directory. Open never detects either way.
	NoDetect bool

	// NoReadAhead sends every Read and ReadAt of a File to its driver as
	// asked, without the read-ahead window that serves small sequential
	// reads. Conformance checks (package fstest) set it to see what the
	// driver itself does.
	NoReadAhead bool

	// Schemes holds the options of individual roots and adapters, keyed by
	// lower-case scheme: each scheme's package documents the type it reads
	// (a *s3root.Options under "s3"). An entry under a root's scheme serves
	// the other schemes it registered with too ("http" serves https, "s3"
	// serves s3+http and s3+https) unless they have an entry of their own.
	// Opening a pipeline fails with an error matching fs.ErrInvalid when a
	// key is not a scheme, or when a registered scheme's value is not of
	// its type; a scheme the program did not register is ignored.
	Schemes map[string]any
}

// SchemeOptions returns the options of type T that the pipeline is opened
// with for the scheme of the driver env was given to, and the zero T when
// there are none. The engine has checked the value's type at open.
func SchemeOptions[T any](env *Env) T {
	v, _ := env.scheme.(T)
	return v
}

// Limits bound the resources that hostile input can claim. A zero field
// means its default; a negative field means no limit. Hitting a limit is an
// error matching ErrLimit, never a crash or an unbounded allocation.
type Limits struct {
	// MaxDepth bounds the number of sub-URLs in a pipeline, detected
	// adapters included. Default 32.
	MaxDepth int
	// MaxEntries bounds the number of entries in one archive. Default
	// 1<<20: archive/zip and tar indexes cost about 200 bytes an entry, so
	// the default keeps one index near 200 MiB.
	MaxEntries int
	// MaxNameLength bounds the length in bytes of one name in an archive.
	// Default 4096, PATH_MAX on Linux.
	MaxNameLength int
	// MaxFileSize bounds the decompressed size of one file. Default 1 TiB.
	MaxFileSize int64
	// MaxRatio bounds decompressed size / compressed size of one member,
	// once the output is past RatioFloor. Default 1100: DEFLATE cannot
	// exceed 1032:1, so only bombs built from overlapping entries or lying
	// headers go past it.
	MaxRatio int64
	// RatioFloor is the output, in bytes, that MaxRatio never refuses:
	// MaxOutputSlack is at least this much, whatever the compressed size.
	// zstd, xz and bzip2 compress long runs far beyond 1100:1, so ordinary
	// data (100 MB of zeros, a sparse disk image) reads; a bomb still stops
	// here, at a bounded cost in time and none in memory. Default 1 GiB;
	// 1 applies MaxRatio from the first byte, and a negative floor never.
	// MaxFileSize applies as well. DEFLATE headers in a zip that declare
	// more than MaxRatio are refused whatever the floor: DEFLATE cannot
	// exceed 1032:1, so such a header lies.
	RatioFloor int64
	// MaxWindow bounds the history window a decoder may be asked to keep
	// (zstd frames, xz dictionaries). Default 128 MiB, which admits
	// zstd --long=27.
	MaxWindow int64
	// MaxDocument bounds a document that is decoded whole in memory: a
	// json: document, array metadata (.zarray, zarr.json, attributes.json,
	// info). Default 64 MiB; decoding costs several times the size.
	MaxDocument int64
	// MaxChunk bounds the decoded size of one array chunk, and of one
	// shard's index. Default 1 GiB.
	MaxChunk int64
}

// Defaults of the Limits fields.
const (
	DefaultMaxDepth      = 32
	DefaultMaxEntries    = 1 << 20
	DefaultMaxNameLength = 4096
	DefaultMaxFileSize   = 1 << 40
	DefaultMaxRatio      = 1100
	DefaultRatioFloor    = 1 << 30
	DefaultMaxWindow     = 128 << 20
	DefaultMaxDocument   = 64 << 20
	DefaultMaxChunk      = 1 << 30
)

// Effective returns l with every zero field set to its default and every
// negative field set to the largest value of its type (no limit).
func (l Limits) Effective() Limits {
	l.MaxDepth = pick(l.MaxDepth, DefaultMaxDepth, int(^uint(0)>>1))
	l.MaxEntries = pick(l.MaxEntries, DefaultMaxEntries, int(^uint(0)>>1))
	l.MaxNameLength = pick(l.MaxNameLength, DefaultMaxNameLength, int(^uint(0)>>1))
	l.MaxFileSize = pick(l.MaxFileSize, DefaultMaxFileSize, 1<<63-1)
	l.MaxRatio = pick(l.MaxRatio, DefaultMaxRatio, 1<<63-1)
	l.RatioFloor = pick(l.RatioFloor, DefaultRatioFloor, 1<<63-1)
	l.MaxWindow = pick(l.MaxWindow, DefaultMaxWindow, 1<<63-1)
	l.MaxDocument = pick(l.MaxDocument, DefaultMaxDocument, 1<<63-1)
	l.MaxChunk = pick(l.MaxChunk, DefaultMaxChunk, 1<<63-1)
	return l
}

func pick[T int | int64](v, def, max T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return max
	}
	return v
}

// limits returns the effective limits of o (o may be nil).
func (o *Options) limits() Limits {
	if o == nil {
		return Limits{}.Effective()
	}
	return o.Limits.Effective()
}

// EffectiveLimits returns the limits that apply under o, defaults filled in.
// o may be nil.
func (o *Options) EffectiveLimits() Limits { return o.limits() }

func (o *Options) registry() *Registry {
	if o == nil || o.Registry == nil {
		return DefaultRegistry
	}
	return o.Registry
}

// MaxOutput returns how many bytes compressed bytes may decompress to under
// l.MaxRatio (l as Effective returns it), saturating instead of
// overflowing; 0 for no input.
func (l Limits) MaxOutput(compressed int64) int64 {
	if compressed <= 0 {
		return 0
	}
	if l.MaxRatio > (1<<63-1)/compressed {
		return 1<<63 - 1
	}
	return l.MaxRatio * compressed
}

// MaxOutputSlack is MaxOutput(compressed) plus 64 KiB, saturating, and at
// least l.RatioFloor: the bound a decompressor checks its output against.
// The slack is there because the first bytes of a stream (a header, a
// dictionary, a short run) may legitimately decode to more than MaxRatio
// times their size; the floor because a long run compressed by zstd, xz or
// bzip2 legitimately does too.
func (l Limits) MaxOutputSlack(compressed int64) int64 {
	const slack = 64 << 10
	return max(min(l.MaxOutput(compressed), 1<<63-1-slack)+slack, l.RatioFloor)
}

// RatioError describes output over MaxOutputSlack: what decoded to how much,
// and the Limits fields that lift the bound. what names the output ("zstd
// frame 3"); compressed is the compressed size the bound was computed from.
func (l Limits) RatioError(what string, compressed int64) error {
	return driver.Limitf("%s decompresses to more than %d bytes: Limits.MaxRatio (%d) times its %d compressed bytes, and over Limits.RatioFloor (%d bytes); raise either to read it",
		what, l.MaxOutputSlack(compressed), l.MaxRatio, compressed, l.RatioFloor)
}
