package bzip2adapter

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"io"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// DecodeHead decodes the first bytes of the output of a bzip2 stream
// whose first bytes are head: at most n bytes, as far as head goes (a head
// cut short is no error). A bzip2 block is at most 900 kB, so it costs a
// few MB of memory at most whatever the stream. A head that is not bzip2,
// or bad data within it, is an error matching driver.ErrCorrupt, with what
// decoded before it. It is the adapter's vfs.Adapter.DecodeHead.
func DecodeHead(head []byte, n int, _ vfs.Limits) ([]byte, error) {
	out := make([]byte, n)
	k, err := io.ReadFull(bzip2.NewReader(bytes.NewReader(head)), out)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return out[:k], nil
	}
	return out[:k], driver.Corruptf("bzip2 head: %v", err)
}
