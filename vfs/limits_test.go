package vfs_test

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// gzipZeros returns a gzip member of n MiB of zeros, built from one
// compressed MiB repeated: about 1 KB a MiB, made in milliseconds. With
// crc false the trailer's CRC-32 is left 0, for a bomb that a reader
// stops long before its end.
func gzipZeros(t testing.TB, n int, crc bool) []byte {
	var raw bytes.Buffer
	w, _ := flate.NewWriter(&raw, flate.BestCompression)
	zero := make([]byte, 1<<20)
	w.Write(zero)
	w.Flush()
	first := raw.Len()
	w.Write(zero)
	w.Flush()
	chunk := bytes.Clone(raw.Bytes()[first:]) // refers only to zeros before it
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	out = append(out, raw.Bytes()...)
	for range n - 2 {
		out = append(out, chunk...)
	}
	out = append(out, 3, 0) // a final empty fixed-Huffman block
	var sum uint32
	for range n {
		if crc {
			sum = crc32.Update(sum, crc32.IEEETable, zero)
		}
	}
	out = binary.LittleEndian.AppendUint32(out, sum)
	out = binary.LittleEndian.AppendUint32(out, uint32(n<<20))
	return out
}

// TestBombs: with the default limits, 10 GiB of zeros gzipped twice stops
// at Limits.RatioFloor, with no byte past it read; 100 MB of zeros
// gzipped reads.
func TestBombs(t *testing.T) {
	inner := gzipZeros(t, 10<<10, false)
	var outer bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&outer, gzip.BestCompression)
	zw.Write(inner)
	zw.Close()
	ordinary := gzipZeros(t, 100, true)
	prefix := fstest.MapFiles(t, map[string][]byte{"bomb.gz.gz": outer.Bytes(), "zeros.gz": ordinary})
	lim := (*vfs.Options)(nil).EffectiveLimits()

	f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/bomb.gz.gz|gzip:|gzip:", nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, f)
	f.Close()
	if !errors.Is(err, vfs.ErrLimit) || !strings.Contains(err.Error(), "Limits.") || n > lim.MaxOutputSlack(int64(outer.Len())) {
		t.Errorf("io.Copy of %d bytes of double gzip = %d bytes, %v; want ErrLimit naming a Limits field within %d bytes",
			outer.Len(), n, err, lim.MaxOutputSlack(int64(outer.Len())))
	}

	t.Logf("double gzip, %d bytes: %d bytes read, %v", outer.Len(), n, err)

	f, err = vfs.Open(context.Background(), "memory:/"+prefix+"/zeros.gz|gzip:", nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err = io.Copy(io.Discard, f)
	f.Close()
	if n != 100<<20 || err != nil {
		t.Errorf("io.Copy of 100 MiB of zeros in %d bytes = %d bytes, %v; want all of them", len(ordinary), n, err)
	}
}
