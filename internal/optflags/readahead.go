package optflags

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/vfs"
)

// readaheadFlags are the flags that size the parallel readahead of a
// large sequential read of a remote object (cache.Config.Streams and
// PartSize): how many range requests it keeps in flight, and how large
// each one is.
type readaheadFlags struct {
	streams  int
	partSize string

	vc *vfs.Cache // the cache the flags configure; nil for the default
}

func (f *readaheadFlags) add(fs *pflag.FlagSet) {
	def := cache.Config{}.WithDefaults()
	fs.IntVar(&f.streams, "streams", def.Streams,
		"range requests in flight at once for a large sequential read of a remote object (cat, cp, serve, mount); 1 reads one range at a time")
	fs.StringVar(&f.partSize, "part-size", FormatSize(def.PartSize),
		"the size of each of those requests, such as 4M")
}

// setup makes a cache of the sizes the flags ask for, when they were
// given.
func (f *readaheadFlags) setup(fs *pflag.FlagSet) error {
	if !fs.Changed("streams") && !fs.Changed("part-size") {
		return nil
	}
	if f.streams < 1 {
		return fmt.Errorf("--streams %d: want 1 or more", f.streams)
	}
	n, err := ParseSize(f.partSize)
	if err != nil {
		return fmt.Errorf("--part-size: %w", err)
	}
	if n <= 0 {
		return fmt.Errorf("--part-size %s: want a size such as 2M", f.partSize)
	}
	vc := vfs.NewCache(0)
	if err := cache.Configure(vc, cache.Config{Streams: f.streams, PartSize: n}); err != nil {
		return err
	}
	f.vc = vc
	return nil
}

// apply sets the cache in o.
func (f *readaheadFlags) apply(o *vfs.Options) *vfs.Options {
	o.Cache = f.vc
	return o
}
