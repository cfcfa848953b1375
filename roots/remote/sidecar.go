package remote

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Putter is a Backend that can write objects: the backends of stores
// (S3, GCS), whose blobs then keep the sidecar indexes of
// vfs.Options.Sidecar beside their objects.
type Putter interface {
	// Put writes data as object name, replacing any. Transient failures
	// are wrapped with Retryable.
	Put(ctx context.Context, name string, data []byte) error
}

var _ driver.Sidecars = (*Blob)(nil)

// ReadSidecar reads the object named as b's with suffix appended, if it
// has at most limit bytes: one request, counted in the tree's Stats. It
// fails with errors.ErrUnsupported when the backend cannot write objects
// (a plain HTTP server), since such a store holds no sidecars.
func (b *Blob) ReadSidecar(ctx context.Context, suffix string, limit int64) ([]byte, error) {
	if _, ok := b.t.b.(Putter); !ok {
		return nil, fmt.Errorf("%s: sidecars: %w", b.key, errors.ErrUnsupported)
	}
	name := b.src.name + suffix
	var data []byte
	err := b.t.o.Retry.Do(ctx, func() error {
		b.t.stats.AddRequest()
		resp, err := b.t.b.Get(ctx, name, 0, limit+1, "")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.Start != 0 || resp.Size > limit {
			return driver.Limitf("%s: sidecar of %d bytes, over the %d the index may have", b.t.b.Key(name), resp.Size, limit)
		}
		data, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
		b.t.stats.AddBytes(int64(len(data)))
		if err == nil && int64(len(data)) > limit {
			err = driver.Limitf("%s: sidecar over the %d bytes the index may have", b.t.b.Key(name), limit)
		}
		if err == nil && resp.Length >= 0 && int64(len(data)) < resp.Length {
			err = Retryable(io.ErrUnexpectedEOF, 0)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return data, nil
}

// WriteSidecar writes data as the object named as b's with suffix
// appended: one request, counted in the tree's Stats. It fails with
// errors.ErrUnsupported when the backend cannot write objects.
func (b *Blob) WriteSidecar(ctx context.Context, suffix string, data []byte) error {
	p, ok := b.t.b.(Putter)
	if !ok {
		return fmt.Errorf("%s: sidecars: %w", b.key, errors.ErrUnsupported)
	}
	name := b.src.name + suffix
	return b.t.o.Retry.Do(ctx, func() error {
		b.t.stats.AddRequest()
		return p.Put(ctx, name, data)
	})
}
