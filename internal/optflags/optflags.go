// Package optflags holds the command-line flags that set vfs.Options, as
// the pipefs command gives them to every subcommand:
//
//   - a flag for every int field of vfs.Limits (--max-ratio for
//     MaxRatio, found by reflection, so a new limit gets its flag with no
//     code here), with the values of $PIPEFS_LIMITS under them;
//   - the index cache on disk (--cache-dir, --cache-size) and the
//     sidecar mode (--sidecar), with $PIPEFS_CACHE_DIR and
//     $PIPEFS_SIDECAR under them;
//   - the readahead of large sequential remote reads (--streams,
//     --part-size).
//
// Sizes are decimal integers with an optional K, M, G, T, P or E suffix
// (powers of 1024), or "none", "off" or "unlimited" for -1 (ParseSize).
//
// The package reads no environment variable: the caller passes their
// values in an Env, so that the library and its tests stay free of
// ambient state. Flags win over the variables.
package optflags

import (
	"github.com/spf13/pflag"

	"github.com/pipefs/pipefs/vfs"
)

// The environment variables whose values an Env holds.
const (
	// LimitsEnv sets limits, as "MaxRatio=-1,MaxFileSize=2T".
	LimitsEnv = "PIPEFS_LIMITS"
	// CacheDirEnv names the directory of the index cache when
	// --cache-dir is not given; "off" turns it off.
	CacheDirEnv = "PIPEFS_CACHE_DIR"
	// SidecarEnv sets --sidecar's default: off, read or write.
	SidecarEnv = "PIPEFS_SIDECAR"
)

// Env holds the values of the environment variables under the flags
// ("" for one that is not set).
type Env struct {
	Limits   string // $PIPEFS_LIMITS
	CacheDir string // $PIPEFS_CACHE_DIR
	Sidecar  string // $PIPEFS_SIDECAR
}

// Flags are the flags that set vfs.Options. Make them with New, add them
// to a flag set with Add, and after parsing call Setup once, then Apply
// for every Options.
type Flags struct {
	limitFlags []*limitFlag
	limits     vfs.Limits
	disk       diskCacheFlags
	readahead  readaheadFlags
}

// New returns the flags, not yet added to a flag set.
func New() *Flags { return &Flags{limitFlags: limitFields()} }

// Add adds every flag to fs.
func (f *Flags) Add(fs *pflag.FlagSet) {
	addLimitFlags(fs, f.limitFlags)
	f.disk.add(fs)
	f.readahead.add(fs)
}

// Setup reads what the flags set on fs and env ask for: the limits, the
// store on disk (opened here; one that the flags did not ask for and that
// cannot be opened is no error, the indexes then stay in memory), the
// sidecar mode and the readahead's cache. An error is a usage error: a
// bad value, or a store asked for that cannot be opened.
func (f *Flags) Setup(fs *pflag.FlagSet, env Env) error {
	l, err := limits(fs, f.limitFlags, env.Limits)
	if err != nil {
		return err
	}
	f.limits = l
	if err := f.disk.setup(fs, env); err != nil {
		return err
	}
	return f.readahead.setup(fs)
}

// Limits returns the limits Setup read.
func (f *Flags) Limits() vfs.Limits { return f.limits }

// Apply sets in o what Setup read: the limits, the store on disk, the
// sidecar mode and the cache; it returns o.
func (f *Flags) Apply(o *vfs.Options) *vfs.Options {
	o.Limits = f.limits
	return f.readahead.apply(f.disk.apply(o))
}
