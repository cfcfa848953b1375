package zipadapter

import (
	"bufio"
	"errors"
	"io"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/blobread"
	"github.com/pipefs/pipefs/internal/deflate64"
)

// deflate64Resumer decodes Deflate64 members (internal/deflate64), whose
// points are the decoder's checkpoints at block boundaries.
type deflate64Resumer struct{}

func (deflate64Resumer) from(rd *blobread.Reader, p *point, spacing int64, record func(point)) (io.Reader, error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	if p != nil {
		return deflate64.Resume(br, p.state.(deflate64.Checkpoint)), nil
	}
	d := deflate64.NewReader(br)
	d.Checkpoints(spacing, func(cp deflate64.Checkpoint) { record(point{in: cp.In, out: cp.Out, state: cp}) })
	return d, nil
}

func (deflate64Resumer) translate(err error) error {
	var ce *deflate64.CorruptInputError
	switch {
	case errors.As(err, &ce):
		return driver.Corruptf("Deflate64 member: %v", err)
	case err == io.ErrUnexpectedEOF:
		return driver.Corruptf("Deflate64 member: the data ends before its final block")
	}
	return err
}
