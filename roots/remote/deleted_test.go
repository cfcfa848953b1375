package remote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// deletable is a fake whose object can be deleted.
type deletable struct {
	*fake
	gone atomic.Bool
}

func (d *deletable) Get(ctx context.Context, name string, off, n int64, version string) (*Response, error) {
	if d.gone.Load() {
		d.requests.Add(1)
		return nil, fmt.Errorf("%s: 404 Not Found: %w", d.Key(name), fs.ErrNotExist)
	}
	return d.fake.Get(ctx, name, off, n, version)
}

// An object deleted after it was opened has changed since open: a read
// fails with an error matching driver.ErrModified, as well as the
// backend's fs.ErrNotExist.
func TestReadAfterDelete(t *testing.T) {
	d := &deletable{fake: &fake{data: data(100000), version: "v1"}}
	tr := newTree(d.fake)
	tr.b = d
	b, err := tr.OpenBlob(context.Background(), "obj")
	if err != nil {
		t.Fatal(err)
	}
	d.gone.Store(true)
	_, err = b.ReadAt(context.Background(), make([]byte, 10), 0)
	if !errors.Is(err, driver.ErrModified) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadAt after a delete = %v, want driver.ErrModified and fs.ErrNotExist", err)
	}
}
