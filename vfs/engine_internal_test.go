package vfs

import (
	"context"
	"errors"
	"testing"
)

// closeOnce is a blob that fails when closed twice.
type closeOnce struct {
	Blob
	closes int
}

func (c *closeOnce) Close() error {
	c.closes++
	if c.closes > 1 {
		return errors.New("closed twice")
	}
	return nil
}

// TestPassThroughClosedOnce checks that a blob an adapter returns as it
// got it is closed once, with the pipeline.
func TestPassThroughClosedOnce(t *testing.T) {
	b := &closeOnce{Blob: BytesBlob([]byte("abc"), nil)}
	g := newTestRegistry(nil)
	g.RegisterRoot(&Root{Scheme: "file", Open: func(ctx context.Context, u SubURL, o *Options) (Location, error) {
		return Location{Blob: b}, nil
	}})
	f, err := OpenFile(context.Background(), "file:/a|test.pass:|test.pass:", &Options{Registry: g})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil || b.closes != 1 {
		t.Errorf("Close() = %v after %d closes of the blob, want nil after 1", err, b.closes)
	}
}
