package optflags

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs"
)

// diskCacheFlags are the flags of the index cache on disk, where a process
// keeps the indexes it derived (tar member tables, gzip checkpoints) for
// the processes after it. It is on by default, in
// os.UserCacheDir()/pipefs (disk.DefaultDir), or the directory
// $PIPEFS_CACHE_DIR names ("off" turns it off).
type diskCacheFlags struct {
	dir     string
	size    string
	sidecar string

	mode vfs.SidecarMode // --sidecar, else $PIPEFS_SIDECAR

	store *disk.Store // the store the flags and the environment ask for; nil for none
}

func (f *diskCacheFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "cache-dir", "",
		"directory of the index cache kept across runs (default $"+CacheDirEnv+", else the user cache directory + /pipefs); \"off\" turns it off")
	fs.StringVar(&f.size, "cache-size", "",
		fmt.Sprintf("byte budget of the index cache, such as 512M (default %s)", FormatSize(disk.DefaultBudget)))
	fs.StringVar(&f.sidecar, "sidecar", "",
		"share indexes through the bucket, as objects NAME.pipefs/* beside each s3: or gs: archive: \"read\" reads them, \"write\" also writes the ones this run derives (default $"+SidecarEnv+", else off)")
}

// setup opens the store the flags ask for: the directory of --cache-dir,
// else of env.CacheDir ($PIPEFS_CACHE_DIR), else disk.DefaultDir; none when that is
// "off". A store that the flags did not ask for and that cannot be opened
// is no error: the run keeps its indexes in memory only.
func (f *diskCacheFlags) setup(fs *pflag.FlagSet, env Env) error {
	side, from := f.sidecar, "--sidecar"
	if !fs.Changed("sidecar") {
		side, from = env.Sidecar, "$"+SidecarEnv
	}
	m, err := vfs.ParseSidecarMode(side)
	if err != nil {
		return fmt.Errorf("%s %q: want off, read or write", from, side)
	}
	f.mode = m
	f.store = nil
	dir := strings.TrimSpace(f.dir)
	if dir == "off" {
		return nil
	}
	var budget int64
	if fs.Changed("cache-size") {
		n, err := ParseSize(f.size)
		if err != nil || n <= 0 {
			return fmt.Errorf("--cache-size %q: want a positive size such as 512M", f.size)
		}
		budget = n
	}
	asked := dir != "" || budget != 0
	if dir == "" {
		dir = strings.TrimSpace(env.CacheDir)
	}
	switch {
	case dir == "off":
		return nil
	case dir == "":
		if dir, err = disk.DefaultDir(); err != nil {
			return nil
		}
	}
	s, err := disk.Open(dir, budget)
	if err != nil {
		if !asked {
			return nil
		}
		return fmt.Errorf("--cache-dir: %w", err)
	}
	f.store = s
	return nil
}

// apply sets the store and the sidecar mode in o.
func (f *diskCacheFlags) apply(o *vfs.Options) *vfs.Options {
	o.Disk, o.Sidecar = f.store, f.mode
	return o
}
