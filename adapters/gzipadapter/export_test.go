package gzipadapter

import (
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// IndexStats reports the checkpoints of an opened gzip file.
func IndexStats(f *vfs.File) (int, int64) {
	var b *blob
	if f.As(&b) {
		return b.s.Index().Stats()
	}
	return 0, 0
}

// Open is the adapter's open, for tests that stack blobs by hand.
var Open = open

// BlobIndexStats reports the checkpoints of a blob that Open returned.
func BlobIndexStats(b driver.Blob) (int, int64) {
	return b.(*blob).s.Index().Stats()
}
