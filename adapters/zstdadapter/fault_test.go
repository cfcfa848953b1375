package zstdadapter

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	seekable "github.com/SaveTheRbtz/zstd-seekable-format-go/pkg"
	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

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
		t.Run(name, func(t *testing.T) {
			n := int64(len(z))
			fstest.CheckInputErrors(t, z, []int64{0, 5, 20, n / 3, n / 2, n - 200, n - 1},
				func(ctx context.Context, src driver.Blob) (driver.Blob, error) {
					loc, err := open(ctx, src, vfs.SubURL{}, vfs.NewEnv("memory:/x.zst", "zstd", nil))
					return loc.Blob, err
				})
		})
	}
}
