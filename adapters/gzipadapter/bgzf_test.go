package gzipadapter_test

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/pipefs/pipefs/adapters/gzipadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// gzipDC decodes the file at path with the gzip tool.
func gzipDC(t *testing.T, path string) []byte {
	t.Helper()
	out, err := exec.Command("gzip", "-dc", path).Output()
	if err != nil {
		t.Fatalf("gzip -dc %s: %v", path, err)
	}
	return out
}

// TestBGZF reads the bgzip fixtures (testdata/gen.sh) through their block
// table: the size comes from the headers and trailers with no block
// decoded, the bytes are gzip -dc's, and a read decodes only the blocks it
// covers, each with one read of the input.
func TestBGZF(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"bgzf-blocks.gz", "bgzf-empty.gz"} {
		t.Run(name, func(t *testing.T) {
			path := "testdata/" + name
			gz, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := gzipDC(t, path)
			src := &countingBlob{Blob: bytesBlob(name, gz)}
			b := openBlob(t, src)
			if n := b.Stat().Size(); n != int64(len(want)) {
				t.Fatalf("size %d; want %d", n, len(want))
			}
			if d := gzipadapter.BGZFDecoded(b); d != 0 {
				t.Fatalf("%d blocks decoded for the size (-1: not read as BGZF); want 0", d)
			}
			got, err := readBlob(ctx, b)
			if err != nil || string(got) != string(want) {
				t.Fatalf("read %d bytes, %v; want gzip -dc's %d bytes", len(got), err, len(want))
			}
		})
	}

	gz, err := os.ReadFile("testdata/bgzf-blocks.gz")
	if err != nil {
		t.Fatal(err)
	}
	want := gzipDC(t, "testdata/bgzf-blocks.gz")
	const block = 65280 // bgzip's block input size
	if len(want) < 2*block+1000 {
		t.Fatalf("fixture has %d bytes; want three blocks or more", len(want))
	}
	for _, c := range []struct {
		off, n int
		blocks int64
	}{
		{block + 1000, 100, 1},  // inside the second block
		{2*block - 50, 100, 2},  // across the second and third
		{len(want) - 10, 10, 1}, // the end of the last
		{0, len(want), 3},       // everything
		{block + 1000, 1000, 0}, // the block decoded last is kept
	} {
		src := &countingBlob{Blob: bytesBlob("b.gz", gz)}
		b := openBlob(t, src)
		b.Stat().Size()
		if c.blocks == 0 {
			p := make([]byte, 10)
			if _, err := b.ReadAt(ctx, p, int64(c.off)); err != nil {
				t.Fatal(err)
			}
		}
		before, calls := gzipadapter.BGZFDecoded(b), src.calls.Load()
		p := make([]byte, c.n)
		n, err := b.ReadAt(ctx, p, int64(c.off))
		if n != c.n || (err != nil && !(errors.Is(err, io.EOF) && c.off+c.n == len(want))) {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v", c.n, c.off, n, err)
		}
		if string(p) != string(want[c.off:c.off+c.n]) {
			t.Errorf("ReadAt(%d bytes at %d) differs from gzip -dc", c.n, c.off)
		}
		if d := gzipadapter.BGZFDecoded(b) - before; d != c.blocks {
			t.Errorf("ReadAt(%d bytes at %d) decoded %d blocks; want %d", c.n, c.off, d, c.blocks)
		}
		if r := src.calls.Load() - calls; r != c.blocks {
			t.Errorf("ReadAt(%d bytes at %d) made %d reads of the input; want %d", c.n, c.off, r, c.blocks)
		}
	}

	// A source may return io.EOF with a read that reaches its end.
	b0 := openBlob(t, eofBlob{bytesBlob("b.gz", gz)})
	if got, err := readBlob(ctx, b0); err != nil || string(got) != string(want) || gzipadapter.BGZFDecoded(b0) != 3 {
		t.Errorf("read through a source that returns io.EOF with its last bytes: %d bytes, %v, %d blocks decoded; want %d bytes in 3 blocks", len(got), err, gzipadapter.BGZFDecoded(b0), len(want))
	}

	// A flipped byte in a block's data is caught by that block.
	bad := append([]byte(nil), gz...)
	bad[len(bad)/2] ^= 0x40
	b := openBlob(t, bytesBlob("bad.gz", bad))
	if _, err := readBlob(ctx, b); !errors.Is(err, vfs.ErrCorrupt) {
		t.Errorf("reading a BGZF file with a flipped byte: %v; want ErrCorrupt", err)
	}

	// A plain gzip member after the blocks: not BGZF throughout, read as
	// a general gzip stream.
	mixed := append(append([]byte(nil), gz[:len(gz)-28]...), gzipBytes([]byte("tail\n"))...)
	b = openBlob(t, bytesBlob("mixed.gz", mixed))
	got, err := readBlob(ctx, b)
	if err != nil || string(got) != string(want)+"tail\n" {
		t.Errorf("BGZF blocks then a gzip member: read %d bytes, %v; want %d", len(got), err, len(want)+5)
	}
	if d := gzipadapter.BGZFDecoded(b); d != -1 {
		t.Errorf("BGZF blocks then a gzip member: read as BGZF (%d blocks)", d)
	}
}

// eofBlob returns io.EOF with the reads that reach its end, as
// io.ReaderAt allows.
type eofBlob struct{ driver.Blob }

func (b eofBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	n, err := b.Blob.ReadAt(ctx, p, off)
	if err == nil && off+int64(n) == b.Stat().Size() {
		err = io.EOF
	}
	return n, err
}

// bgzfBlock returns data as one BGZF block, compressed with w.
func bgzfBlock(w *flate.Writer, data []byte) []byte {
	var z bytes.Buffer
	w.Reset(&z)
	w.Write(data)
	w.Close()
	b := []byte{0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C', 2, 0, 0, 0}
	b = append(b, z.Bytes()...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(data))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	binary.LittleEndian.PutUint16(b[16:], uint16(len(b)-1))
	return b
}

// TestBGZFSmallBlocks: blocks of a few bytes would make the block table
// as large as the input; such a file is read as any gzip stream, whose
// index is bounded by its spacing. Empty blocks take no table entry.
func TestBGZFSmallBlocks(t *testing.T) {
	w, _ := flate.NewWriter(nil, flate.BestCompression)
	var small, sparse []byte
	for i := range 2000 {
		small = append(small, bgzfBlock(w, fmt.Appendf(nil, "%d\n", i))...)
	}
	sparse = append(sparse, bgzfBlock(w, bytes.Repeat([]byte("x"), 60000))...)
	for range 5000 {
		sparse = append(sparse, bgzfBlock(w, nil)...)
	}
	sparse = append(sparse, bgzfBlock(w, bytes.Repeat([]byte("y"), 60000))...)
	for _, c := range []struct {
		name string
		gz   []byte
		bgzf bool
	}{{"small", small, false}, {"sparse", sparse, true}} {
		want := oracle(t, c.gz)
		b := openBlob(t, bytesBlob(c.name+".gz", c.gz))
		got, err := readBlob(context.Background(), b)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: read %d bytes, %v; want %d", c.name, len(got), err, len(want))
		}
		if d := gzipadapter.BGZFDecoded(b); (d >= 0) != c.bgzf {
			t.Errorf("%s: %d BGZF blocks decoded (-1: read as gzip); want BGZF %v", c.name, d, c.bgzf)
		}
	}
}
