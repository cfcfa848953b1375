package vfs

import (
	"context"
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// closeOnce is a blob that fails when closed twice.
type closeOnce struct {
	driver.Blob
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
	b := &closeOnce{Blob: driver.BytesBlob([]byte("abc"), nil)}
	g := newTestRegistry(nil)
	g.RegisterRoot(&Root{Scheme: "file", Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Blob: b}, nil
	}})
	f, err := Open(context.Background(), "file:/a|test.pass:|test.pass:", &Options{Registry: g})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil || b.closes != 1 {
		t.Errorf("Close() = %v after %d closes of the blob, want nil after 1", err, b.closes)
	}
}
