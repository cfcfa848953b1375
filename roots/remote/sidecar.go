package remote

import (
	"context"
	"io"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs/driver"
)

// A Putter is a Backend that can write objects: the backends of stores
// (S3, GCS), whose blobs then keep the sidecar indexes of
// vfs.Options.Sidecar beside their objects (driver.Sidecars).
type Putter interface {
	// Put writes data as object name, replacing any. Transient failures
	// are wrapped with Retryable.
	Put(ctx context.Context, name string, data []byte) error
}

// maxSidecar bounds the bytes asked for when a sidecar is read: the most
// a vfs.DiskIndex keeps (disk.MaxEntry), and room for its header and key.
// The reader checks the header before it reads the rest.
const maxSidecar = disk.MaxEntry + 128<<10

// sidecarBlob is the Blob of an object whose backend is a Putter.
type sidecarBlob struct {
	*Blob
	p Putter
}

var _ driver.Sidecars = sidecarBlob{}

// OpenSidecar opens the object named as b's with suffix appended: one
// request, counted with its bytes in the tree's Stats.
func (b sidecarBlob) OpenSidecar(ctx context.Context, suffix string) (io.ReadCloser, int64, error) {
	t := b.t
	var resp *Response
	err := t.o.Retry.Do(ctx, func() error {
		t.stats.AddRequest()
		var err error
		resp, err = t.b.Get(ctx, b.src.name+suffix, 0, maxSidecar, "")
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	size := resp.Size
	if resp.Start != 0 {
		size = -1 // not what was asked for: the reader's checks refuse it
	}
	return &countingBody{ReadCloser: resp.Body, t: t}, size, nil
}

// WriteSidecar writes data as the object named as b's with suffix
// appended: one request, counted in the tree's Stats.
func (b sidecarBlob) WriteSidecar(ctx context.Context, suffix string, data []byte) error {
	return b.t.o.Retry.Do(ctx, func() error {
		b.t.stats.AddRequest()
		return b.p.Put(ctx, b.src.name+suffix, data)
	})
}

// countingBody counts the bytes read from a body in the tree's Stats.
type countingBody struct {
	io.ReadCloser
	t *Tree
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.t.stats.AddBytes(int64(n))
	return n, err
}
