package zstdadapter

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	seekable "github.com/SaveTheRbtz/zstd-seekable-format-go/pkg"
	"github.com/klauspost/compress/zstd"

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

// readThrough opens src as zstd and reads the output to its end.
func readThrough(ctx context.Context, src driver.Blob) error {
	loc, err := open(ctx, src, vfs.SubURL{}, vfs.NewEnv("memory:/x.zst", "zstd", nil))
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
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

// TestInputErrors: an error of the input, at any offset and whether the
// index comes from frame headers or a seek table, comes back as itself and
// never as corrupt data; so does a cancelled context.
func TestInputErrors(t *testing.T) {
	data := make([]byte, 600<<10)
	rand.NewChaCha8([32]byte{}).Read(data)
	copy(data, bytes.Repeat([]byte("pipefs reads zstd frames; "), 10000))
	var multi bytes.Buffer
	for i := range 3 {
		e, _ := zstd.NewWriter(&multi, zstd.WithEncoderLevel(zstd.SpeedFastest))
		e.Write(data[i*1000:])
		e.Close()
	}
	var stream bytes.Buffer
	e, _ := zstd.NewWriter(&stream)
	e.Write(data)
	e.Close()
	var sk bytes.Buffer
	w, err := seekable.NewWriter(&sk, e)
	if err != nil {
		t.Fatal(err)
	}
	for p := data; len(p) > 0; p = p[min(len(p), 64<<10):] {
		w.Write(p[:min(len(p), 64<<10)])
	}
	w.Close()
	inputs := map[string][]byte{
		"frames":   multi.Bytes(),
		"stream":   stream.Bytes(), // no declared size
		"seekable": sk.Bytes(),
	}
	for name, z := range inputs {
		if err := readThrough(context.Background(), driver.BytesBlob(z, nil)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, at := range []int64{0, 5, 20, int64(len(z)) / 3, int64(len(z)) / 2, int64(len(z)) - 200, int64(len(z)) - 1} {
			err := readThrough(context.Background(), faultBlob{driver.BytesBlob(z, nil), at})
			if !errors.Is(err, errDisk) || errors.Is(err, driver.ErrCorrupt) {
				t.Errorf("%s: fault at %d of %d: %v; want errDisk, not ErrCorrupt", name, at, len(z), err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := readThrough(ctx, driver.BytesBlob(z, nil)); !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: cancelled: %v; want context.Canceled, not ErrCorrupt", name, err)
		}
		// Cancelled after open, during a read.
		loc, err := open(context.Background(), driver.BytesBlob(z, nil), vfs.SubURL{}, vfs.NewEnv("memory:/x.zst", "zstd", nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := loc.Blob.ReadAt(ctx, make([]byte, 100), 1000); !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: read cancelled: %v; want context.Canceled, not ErrCorrupt", name, err)
		}
	}
}
