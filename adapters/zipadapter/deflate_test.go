package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// openAndStream opens the archive in b and streams every member with
// driver.Streamer where the blob is one, as io.Copy of a vfs.File does.
func openAndStream(b driver.Blob, o *vfs.Options) error {
	ctx := context.Background()
	a, err := Open(ctx, b, o)
	if err != nil {
		return err
	}
	return fs.WalkDir(fstest.TreeFS(a), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		blob, err := a.OpenBlob(ctx, name)
		if err != nil {
			return err
		}
		if c, ok := blob.(io.Closer); ok {
			defer c.Close()
		}
		s, ok := blob.(driver.Streamer)
		if !ok {
			return nil
		}
		rc, err := s.Stream(ctx, 0)
		if err != nil {
			return err
		}
		defer rc.Close()
		n, err := io.Copy(io.Discard, rc)
		if n > blob.Stat().Size() {
			return driver.Corruptf("streamed %d bytes of a %d-byte member", n, blob.Stat().Size())
		}
		return err
	})
}

// TestDeflateIndexed reads a deflated member at random offsets and
// checks the bytes, then streams it from the middle.
func TestDeflateIndexed(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 3<<20)
	for i := range data {
		if i%(256<<10) < 128<<10 {
			data[i] = byte(r.IntN(256)) // stored blocks
		} else {
			data[i] = "abcdefgh \n"[r.IntN(10)]
		}
	}
	z := makeZip(t, entrySpec{"big.bin", data, zip.Deflate})
	a, err := Open(context.Background(), driver.BytesBlob(z, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.OpenBlob(context.Background(), "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer b.(io.Closer).Close()
	buf := make([]byte, 4096)
	for range 100 {
		off := r.Int64N(int64(len(data)))
		n, err := b.ReadAt(context.Background(), buf, off)
		if err != nil && err != io.EOF || !bytes.Equal(buf[:n], data[off:off+int64(n)]) {
			t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
		}
	}
	rc, err := b.(driver.Streamer).Stream(context.Background(), 1<<20+7)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil || !bytes.Equal(got, data[1<<20+7:]) {
		t.Fatalf("Stream: %d bytes, %v", len(got), err)
	}
}
