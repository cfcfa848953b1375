package gzipadapter

import "github.com/pipefs/pipefs/vfs"

// IndexStats reports the checkpoints of an opened gzip file.
func IndexStats(f *vfs.File) (int, int64) {
	var b *blob
	if f.As(&b) {
		return b.s.Index().Stats()
	}
	return 0, 0
}
