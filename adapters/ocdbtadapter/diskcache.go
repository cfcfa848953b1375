package ocdbtadapter

import (
	"context"
	"fmt"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// diskKind names the objects this adapter keeps through vfs.DiskObject
// and the version of what it keeps: the bytes of a node as stored.
const diskKind = "ocdbt node v1"

// readNode reads the node r locates, a B+tree or version-tree node, and
// decodes it with decode. OCDBT never rewrites a data file: a commit
// writes new files under new random names and points the manifest at
// them, so the bytes at a path, offset and length never change, and a
// copy on disk (vfs.Env.DiskObject) serves later processes without
// opening the data file. The copy is decoded by the same decode; one of
// the wrong length or that fails is a miss, read again from the data file
// and kept anew. The manifest, which every commit rewrites, never comes
// here.
func (d *db) readNode(ctx context.Context, r ref, decode func([]byte) error) error {
	var o vfs.DiskObject
	if d.env != nil && r.length <= maxEncodedBytes {
		o = d.env.DiskObject(diskKind, fmt.Sprintf("%s@%d+%d", r.file.path, r.offset, r.length))
	}
	return o.Load(int64(r.length), func() ([]byte, error) { return d.readRef(ctx, r) }, func(b []byte) error {
		if uint64(len(b)) != r.length {
			return driver.Corruptf("a node of %d bytes where %d were written", len(b), r.length)
		}
		return decode(b)
	})
}
