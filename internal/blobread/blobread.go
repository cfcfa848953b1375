// Package blobread reads a range of a driver.Blob forward, as an io.Reader,
// for the decoders that consume their input as a stream.
package blobread

import (
	"context"
	"io"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Reader reads Src from Pos up to End with ReadAt, using Ctx, which its
// owner may change between calls (a pooled decoder reads with the context
// of the current call). The input ending before End is an error matching
// driver.ErrCorrupt: the blob is shorter than its size said. The zero Reader
// is not usable; set Src and End.
type Reader struct {
	Ctx context.Context
	Src driver.Blob
	Pos int64 // offset of the next byte read
	End int64 // offset where the range ends
}

// Read reads the next bytes of the range; io.EOF at End.
func (r *Reader) Read(p []byte) (int, error) {
	if r.Pos >= r.End {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.End-r.Pos)]
	n, err := r.Src.ReadAt(r.Ctx, p, r.Pos)
	r.Pos += int64(n)
	if err == io.EOF {
		if n > 0 {
			err = nil
		} else {
			err = driver.Corruptf("input ends at %d, before its size %d", r.Pos, r.End)
		}
	}
	return n, err
}
