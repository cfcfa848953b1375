package icechunkadapter

import (
	"bytes"
	"context"

	"github.com/pipefs/pipefs/vfs"
)

// diskKind names the objects this adapter keeps through vfs.DiskObject
// and the version of what it keeps: the files as stored.
const diskKind = "icechunk v1"

// readImmutable reads the metadata file name of the repository, a
// snapshot or a manifest, and decodes it with decode. Those files are
// named by a random id that no writer reuses and never rewritten, so a
// copy on disk (vfs.Env.DiskObject) serves later processes. The copy is
// decoded by the same decode, which also checks that it holds the object
// asked for; one that fails is a miss, read again from the repository and
// kept anew. The repo file and refs/ are rewritten by every commit and
// never come here.
func (r *repo) readImmutable(ctx context.Context, name string, decode func([]byte) error) error {
	var d vfs.DiskObject
	if r.env != nil {
		d = r.env.DiskObject(diskKind, name)
	}
	return d.Load(maxStoredMetadata, func() ([]byte, error) {
		return readFile(ctx, r.base, name, maxStoredMetadata)
	}, decode)
}

// checkManifestID checks that the manifest decoded from name is the one
// with id want.
func checkManifestID(name string, m *manifest, want id12) error {
	if m.id != nil && !bytes.Equal(m.id, want[:]) {
		var got id12
		copy(got[:], m.id)
		return corruptf("%s: holds manifest %s", name, got)
	}
	return nil
}
