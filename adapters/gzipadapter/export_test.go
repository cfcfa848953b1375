package gzipadapter

import (
	"compress/gzip"

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

// BGZFDecoded reports how many BGZF blocks a blob that Open returned has
// decoded through its block table, or -1 when it is not read as BGZF.
func BGZFDecoded(b driver.Blob) int64 {
	z := b.(*blob).bgzf
	if z == nil || z.known() < 0 {
		return -1
	}
	return z.decoded.Load()
}

// DecodeKeptHead gives tests the header, data offset and size of a head kept
// beside an index.
func DecodeKeptHead(b []byte, srcSize int64, maxName int) (*gzip.Header, int64, int64, error) {
	h, data, hd, err := decodeHead(b, srcSize, maxName)
	return h, data, hd.size, err
}

// WithHeadSize returns the kept head b saying the output size is size.
func WithHeadSize(b []byte, size int64) []byte {
	h, data, hd, err := decodeHead(b, 1<<62, 1<<20)
	if err != nil {
		panic(err)
	}
	hd.size = size
	return encodeHead(h, data, hd)
}
