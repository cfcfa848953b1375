// Package rangeadapter registers the "byte-range:START-END" adapter: the
// bytes [START, END) of its base file, as a file.
//
// The result is a section of the base: reads go straight to the base with
// no copy and no buffering, so a byte range of a remote object fetches only
// what is read. The base must hold at least END bytes. The result's name is
// the base's name.
package rangeadapter

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "byte-range", OpenFile: open})
}

func open(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	start, end := u.Range()
	info := src.Stat()
	if size := info.Size(); end > uint64(size) {
		return driver.Location{}, fmt.Errorf("range %d-%d ends past the base's %d bytes: %w", start, end, size, fs.ErrInvalid)
	}
	n := int64(end - start)
	ri := &driver.FileInfo{FName: info.Name(), FSize: n, FMode: info.Mode().Perm(), FModTime: info.ModTime(), FSys: info.Sys()}
	return driver.Location{Blob: driver.SectionBlob(src, int64(start), n, ri)}, nil
}
