package gzipadapter

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// DecodeHead decodes the first bytes of the output of a gzip stream whose
// first bytes are head: at most n bytes, as far as head goes (a head cut
// short is no error). Deflate's window is 32 KiB, so it costs about n
// bytes of memory whatever the stream. A head that is not gzip, or bad
// data within it, is an error matching driver.ErrCorrupt, with what
// decoded before it. It is the adapter's vfs.Adapter.DecodeHead.
func DecodeHead(head []byte, n int, _ vfs.Limits) ([]byte, error) {
	z, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return nil, headError(err)
	}
	out := make([]byte, n)
	k, err := io.ReadFull(z, out)
	return out[:k], headError(err)
}

// headError is what DecodeHead returns for err, an error of decoding a
// head: nil for the end of the head or of the stream.
func headError(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return driver.Corruptf("gzip head: %v", err)
}
