package fusefs_test

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// sparseWriter writes to a file, leaving a hole where a write is all
// zeros, so that a zip of a member of gigabytes of zeros takes no room.
type sparseWriter struct {
	f     *os.File
	zeros []byte
}

func (w *sparseWriter) Write(p []byte) (int, error) {
	if len(p) <= len(w.zeros) && bytes.Equal(p, w.zeros[:len(p)]) {
		if _, err := w.f.Seek(int64(len(p)), io.SeekCurrent); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.f.Write(p)
}

// largeZip writes at path a zip whose one member, big.bin, is stored and
// size bytes long: zeros, then tail. The zeros are a hole in the file.
func largeZip(t *testing.T, path string, size int64, tail []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zeros := make([]byte, 1<<20)
	crc := crc32.NewIEEE()
	for left := size - int64(len(tail)); left > 0; {
		n := min(left, int64(len(zeros)))
		crc.Write(zeros[:n])
		left -= n
	}
	crc.Write(tail)
	zw := zip.NewWriter(&sparseWriter{f: f, zeros: zeros})
	w, err := zw.CreateRaw(&zip.FileHeader{
		Name:               "big.bin",
		Method:             zip.Store,
		CRC32:              crc.Sum32(),
		CompressedSize64:   uint64(size),
		UncompressedSize64: uint64(size),
	})
	if err != nil {
		t.Fatal(err)
	}
	for left := size - int64(len(tail)); left > 0; {
		n := min(left, int64(len(zeros)))
		if _, err := w.Write(zeros[:n]); err != nil {
			t.Fatal(err)
		}
		left -= n
	}
	if _, err := w.Write(tail); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLargeMember mounts a zip whose member is over 4 GiB and reads it
// near its end and across the 4 GiB boundary: sizes and offsets are 64-bit.
func TestLargeMember(t *testing.T) {
	const size = 4<<30 + 3<<20 + 12345
	tail := fstest.RandomBytes(2<<20, 3)
	path := filepath.Join(t.TempDir(), "large.zip")
	largeZip(t, path, size, tail)
	mnt, l := mountFile(t, path)

	big := filepath.Join(mnt, "big.bin")
	info, err := os.Stat(big)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() != size {
		t.Fatalf("size of big.bin = %d, want %d", info.Size(), int64(size))
	}
	f, err := os.Open(big)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tailStart := int64(size - len(tail))
	for _, tc := range []struct {
		off int64
		n   int
	}{
		{tailStart, len(tail)},        // the whole tail
		{size - 100, 100},             // the last bytes
		{size - 100, 1000},            // across the end: a short read
		{1<<32 - 50, 100},             // across 4 GiB, in the zeros
		{tailStart - 10, 20},          // zeros, then the tail
		{tailStart + 1<<20 + 3, 4096}, // inside the tail
	} {
		buf := make([]byte, tc.n)
		n, err := f.ReadAt(buf, tc.off)
		want := wantAt(tc.off, tc.n, size, tail)
		if n != len(want) || (err != nil && err != io.EOF) || (n < tc.n && err != io.EOF) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; want %d bytes", tc.n, tc.off, n, err, len(want))
			continue
		}
		if !bytes.Equal(buf[:n], want) {
			t.Errorf("ReadAt(%d bytes at %d): the bytes differ", tc.n, tc.off)
		}
	}
	if n, err := f.ReadAt(make([]byte, 10), size); n != 0 || err != io.EOF {
		t.Errorf("ReadAt at the end = %d, %v; want 0, EOF", n, err)
	}
	if l.len() != 0 {
		t.Errorf("the mount logged failures:\n%s", l)
	}
}

// wantAt returns the n bytes at off of a file of size bytes, zeros then
// tail, cut at its end.
func wantAt(off int64, n int, size int64, tail []byte) []byte {
	end := min(off+int64(n), size)
	out := make([]byte, 0, end-off)
	tailStart := size - int64(len(tail))
	for i := off; i < end; i++ {
		if i < tailStart {
			out = append(out, 0)
		} else {
			out = append(out, tail[i-tailStart])
		}
	}
	return out
}
