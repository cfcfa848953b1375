package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs"
)

// diskCacheFlags are the flags of the index cache on disk, where a process
// keeps the indexes it derived (tar member tables, gzip checkpoints) for
// the processes after it. It is on by default, in
// os.UserCacheDir()/pipefs, or the directory $PIPEFS_CACHE_DIR names
// ("off" turns it off): see vfs.DefaultDisk.
type diskCacheFlags struct {
	dir     string
	size    string
	sidecar string

	mode vfs.SidecarMode // --sidecar, else $PIPEFS_SIDECAR

	store *disk.Store // the store the flags ask for; nil for the default
	off   bool        // --cache-dir=off
}

func (f *diskCacheFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "cache-dir", "",
		"directory of the index cache kept across runs (default $"+vfs.DiskCacheEnv+", else the user cache directory + /pipefs); \"off\" turns it off")
	fs.StringVar(&f.size, "cache-size", "",
		fmt.Sprintf("byte budget of the index cache, such as 512M (default %s)", formatLimit(disk.DefaultBudget)))
	fs.StringVar(&f.sidecar, "sidecar", "",
		"share indexes through the bucket, as objects NAME.pipefs/* beside each s3: or gs: archive: \"read\" reads them, \"write\" also writes the ones this run derives (default $"+sidecarEnv+", else off)")
}

// sidecarEnv is the environment variable that sets --sidecar's default.
const sidecarEnv = "PIPEFS_SIDECAR"

// setup opens the store the flags ask for.
func (f *diskCacheFlags) setup(fs *pflag.FlagSet) error {
	side, from := f.sidecar, "--sidecar"
	if !fs.Changed("sidecar") {
		side, from = os.Getenv(sidecarEnv), "$"+sidecarEnv
	}
	m, err := vfs.ParseSidecarMode(side)
	if err != nil {
		return fmt.Errorf("%s %q: want off, read or write", from, side)
	}
	f.mode = m
	dir := strings.TrimSpace(f.dir)
	if dir == "off" {
		f.off = true
		return nil
	}
	var budget int64
	if fs.Changed("cache-size") {
		n, err := parseLimit(f.size)
		if err != nil || n <= 0 {
			return fmt.Errorf("--cache-size %q: want a positive size such as 512M", f.size)
		}
		budget = n
	}
	if dir == "" && budget == 0 {
		return nil // the default store, vfs.DefaultDisk
	}
	if dir == "" {
		if d := vfs.DefaultDisk(); d != nil {
			dir = d.Dir()
		} else if env := strings.TrimSpace(os.Getenv(vfs.DiskCacheEnv)); env == "off" {
			f.off = true
			return nil
		} else if dir, _ = disk.DefaultDir(); dir == "" {
			return nil
		}
	}
	s, err := disk.Open(dir, budget)
	if err != nil {
		return fmt.Errorf("--cache-dir: %w", err)
	}
	f.store = s
	return nil
}

// apply sets the store in o.
func (f *diskCacheFlags) apply(o *vfs.Options) *vfs.Options {
	o.Disk, o.NoDisk, o.Sidecar = f.store, f.off, f.mode
	return o
}
