package zstdadapter_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/vfs/driver"
)

// TestReadChecksFrame: a read inside a frame returns its bytes once the
// frame's content checksum is checked: a frame whose checksum does not
// match gives none, wherever the read is. A frame without a checksum is
// read as it is.
func TestReadChecksFrame(t *testing.T) {
	data := corpus(1 << 20)
	z := encode(data, zstd.WithEncoderCRC(true))
	bad := bytes.Clone(z)
	bad[len(bad)-1] ^= 1 // the content checksum
	f, err := open(t, bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 100)
	for _, off := range []int64{0, 500 << 10} {
		if n, err := f.ReadAt(p, off); n != 0 || !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("ReadAt(%d) in a frame with a wrong checksum: %d bytes, %v; want none and driver.ErrCorrupt", off, n, err)
		}
	}

	g, err := open(t, z, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, off := range []int64{0, 500 << 10, 100} {
		if n, err := g.ReadAt(p, off); n != len(p) || err != nil || !bytes.Equal(p, data[off:off+100]) {
			t.Errorf("ReadAt(%d) of a good frame: %d bytes, %v", off, n, err)
		}
	}

	plain := encode(data, zstd.WithEncoderCRC(false))
	h, err := open(t, plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if n, err := h.ReadAt(p, 1000); n != len(p) || err != nil || !bytes.Equal(p, data[1000:1100]) {
		t.Errorf("ReadAt of a frame without a checksum: %d bytes, %v", n, err)
	}
}

// TestConcurrentFirstReads: reads of one unchecked frame at once wait for
// the one decode that checks it, and all get the frame's bytes.
func TestConcurrentFirstReads(t *testing.T) {
	data := corpus(4 << 20)
	f, err := open(t, encode(data, zstd.WithEncoderCRC(true)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			off := int64(i) * 500 << 10
			p := make([]byte, 1000)
			n, err := f.ReadAt(p, off)
			if err == nil && (n != len(p) || !bytes.Equal(p, data[off:off+1000])) {
				err = errors.New("wrong bytes")
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
