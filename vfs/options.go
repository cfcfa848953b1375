package vfs

// Options configure how a pipeline is opened. A nil *Options means the
// defaults, and so does the zero value of every field.
type Options struct {
	// Registry holds the schemes and formats to use. Nil means
	// DefaultRegistry, where the standard schemes register themselves.
	Registry *Registry

	// Limits bound what hostile input can make the library do.
	Limits Limits

	// NoDetect turns off format auto-detection. By default, OpenFS given a
	// file location, and OpenFile given a location of the wrong kind, append
	// the one registered format whose signature matches (SPEC section 6).
	NoDetect bool

	// Schemes holds options of individual roots and adapters, keyed by
	// scheme: each scheme's package documents the type it reads (for
	// example a *s3root.Options under "s3"). Use SchemeOptions to read it.
	Schemes map[string]any
}

// SchemeOptions returns the options of type T that o holds for scheme, and
// the zero T when there are none (o may be nil). A value of another type is
// ignored.
func SchemeOptions[T any](o *Options, scheme string) T {
	var zero T
	if o == nil {
		return zero
	}
	if v, ok := o.Schemes[scheme].(T); ok {
		return v
	}
	return zero
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
	// MaxRatio bounds decompressed size / compressed size of one member.
	// Default 1100: DEFLATE cannot exceed 1032:1, so only bombs built from
	// overlapping entries or lying headers go past it.
	MaxRatio int64
	// MaxWindow bounds the history window a decoder may be asked to keep
	// (zstd frames, xz dictionaries). Default 128 MiB, which admits
	// zstd --long=27.
	MaxWindow int64
}

// Defaults of the Limits fields.
const (
	DefaultMaxDepth      = 32
	DefaultMaxEntries    = 1 << 20
	DefaultMaxNameLength = 4096
	DefaultMaxFileSize   = 1 << 40
	DefaultMaxRatio      = 1100
	DefaultMaxWindow     = 128 << 20
)

// Effective returns l with every zero field set to its default and every
// negative field set to the largest value of its type (no limit).
func (l Limits) Effective() Limits {
	l.MaxDepth = pick(l.MaxDepth, DefaultMaxDepth, int(^uint(0)>>1))
	l.MaxEntries = pick(l.MaxEntries, DefaultMaxEntries, int(^uint(0)>>1))
	l.MaxNameLength = pick(l.MaxNameLength, DefaultMaxNameLength, int(^uint(0)>>1))
	l.MaxFileSize = pick(l.MaxFileSize, DefaultMaxFileSize, 1<<63-1)
	l.MaxRatio = pick(l.MaxRatio, DefaultMaxRatio, 1<<63-1)
	l.MaxWindow = pick(l.MaxWindow, DefaultMaxWindow, 1<<63-1)
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
