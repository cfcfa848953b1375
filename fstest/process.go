package fstest

import (
	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// ProcessOptions returns the options of a new process reading over HTTP:
// a vfs.Cache and an HTTP block cache of their own, so that request
// counts depend on nothing another open left behind, and store as the
// store on disk (nil: none), which processes share.
func ProcessOptions(store *disk.Store) *vfs.Options {
	h := &httproot.Options{}
	h.Remote.Cache = cache.New(cache.Config{})
	return &vfs.Options{Cache: vfs.NewCache(0), Disk: store, Schemes: map[string]any{"http": h}}
}
