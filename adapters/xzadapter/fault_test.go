package xzadapter_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/pipefs/pipefs/adapters/xzadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

var errDisk = errors.New("disk on fire")

// faultBlob fails every read that covers byte at with errDisk: a bad
// sector.
type faultBlob struct {
	driver.Blob
	at int64
}

func (b faultBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off > b.at || off+int64(len(p)) <= b.at {
		return b.Blob.ReadAt(ctx, p, off)
	}
	n, _ := b.Blob.ReadAt(ctx, p[:b.at-off], off)
	return n, errDisk
}

// readThrough opens src and reads the output to its end with ReadAt.
func readThrough(ctx context.Context, src driver.Blob) error {
	loc, err := xzadapter.Open(ctx, src, vfs.SubURL{}, vfs.NewEnv("memory:/x", "", nil))
	if err != nil {
		return err
	}
	buf := make([]byte, 16<<10)
	for off := int64(0); ; off += int64(len(buf)) {
		_, err := loc.Blob.ReadAt(ctx, buf, off)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestInputErrors: an error of the input, wherever it strikes, comes back
// as itself and never as corrupt data; so does a cancelled context.
func TestInputErrors(t *testing.T) {
	z, err := os.ReadFile("testdata/random.bin.xz")
	if err != nil {
		t.Fatal(err)
	}
	if err := readThrough(context.Background(), driver.BytesBlob(z, nil)); err != nil {
		t.Fatal(err)
	}
	size := int64(len(z))
	for _, at := range []int64{0, 3, 12, 40, size / 3, size / 2, size - 40, size - 1} {
		err := readThrough(context.Background(), faultBlob{driver.BytesBlob(z, nil), at})
		if !errors.Is(err, errDisk) || errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("fault at %d of %d: %v; want errDisk, not ErrCorrupt", at, size, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := readThrough(ctx, driver.BytesBlob(z, nil)); !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("cancelled: %v; want context.Canceled, not ErrCorrupt", err)
	}
	loc, err := xzadapter.Open(context.Background(), driver.BytesBlob(z, nil), vfs.SubURL{}, vfs.NewEnv("memory:/x", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loc.Blob.ReadAt(ctx, make([]byte, 100), 1000); !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("read cancelled: %v; want context.Canceled, not ErrCorrupt", err)
	}
}
