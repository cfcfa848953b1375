package vfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/pipefs/pipefs/vfs/driver"
)

// countingBlob serves data, counts its ReadAt calls and the bytes they
// ask for, and fails every read that reaches failAt (when failAt > 0).
type countingBlob struct {
	data    []byte
	info    fs.FileInfo
	reads   int
	asked   int64
	failAt  int64
	failErr error
}

func (b *countingBlob) Stat() fs.FileInfo { return b.info }

func (b *countingBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	b.reads++
	b.asked += int64(len(p))
	if b.failAt > 0 && off+int64(len(p)) > b.failAt {
		return 0, b.failErr
	}
	if off >= int64(len(b.data)) {
		return 0, io.EOF
	}
	n := copy(p, b.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// unknownSize is a FileInfo whose size is not known without decoding.
type unknownSize struct{ driver.FileInfo }

func (unknownSize) SizeKnown() bool { return false }

func testData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func countingFile(data []byte, sizeKnown bool) (*File, *countingBlob) {
	var info fs.FileInfo = &driver.FileInfo{FName: "f", FSize: int64(len(data)), FMode: 0o444}
	if !sizeKnown {
		info = &unknownSize{driver.FileInfo{FName: "f", FSize: int64(len(data)), FMode: 0o444}}
	}
	b := &countingBlob{data: data, info: info}
	return newFile(context.Background(), b, "f", MustParse("memory:/f"), info, nil), b
}

// readBytes reads f to its end n bytes at a time.
func readBytes(t *testing.T, f *File, n int) []byte {
	t.Helper()
	var out []byte
	p := make([]byte, n)
	for {
		m, err := f.Read(p)
		out = append(out, p[:m]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadAheadCounts reads a 200,000-byte file one byte at a time, by
// Read and by ReadAt: the blob is read for the first byte, then once per
// 64 KiB. The last read ahead, short, says where the file ends, when its
// size is not known.
func TestReadAheadCounts(t *testing.T) {
	data := testData(200_000)
	for _, tc := range []struct {
		name      string
		sizeKnown bool
		reads     int
	}{
		{"size known", true, 5},
		{"size unknown", false, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, b := countingFile(data, tc.sizeKnown)
			if got := readBytes(t, f, 1); !bytes.Equal(got, data) {
				t.Fatalf("read %d bytes, not the file's %d", len(got), len(data))
			}
			if b.reads != tc.reads {
				t.Errorf("1-byte Reads of %d bytes made %d blob reads, want %d", len(data), b.reads, tc.reads)
			}
			f, b = countingFile(data, tc.sizeKnown)
			p := make([]byte, 1)
			for i := range data {
				if n, err := f.ReadAt(p, int64(i)); n != 1 || err != nil && (err != io.EOF || i != len(data)-1) || p[0] != data[i] {
					t.Fatalf("ReadAt(1, %d) = %d, %v, %x; want 1, %x", i, n, err, p[0], data[i])
				}
			}
			if n, err := f.ReadAt(p, int64(len(data))); n != 0 || err != io.EOF {
				t.Errorf("ReadAt(1, end) = %d, %v, want 0, EOF", n, err)
			}
			if b.reads > tc.reads+1 {
				t.Errorf("1-byte ReadAts of %d bytes made %d blob reads, want at most %d", len(data), b.reads, tc.reads+1)
			}
		})
	}
	// Large reads go to the blob as they are: no copy, nothing more read.
	f, b := countingFile(data, true)
	if got := readBytes(t, f, 50_000); !bytes.Equal(got, data) {
		t.Fatal("wrong bytes")
	}
	if b.reads != 4 || b.asked != 200_000 {
		t.Errorf("50,000-byte Reads made %d blob reads of %d bytes, want 4 of 200,000", b.reads, b.asked)
	}
}

// TestReadAheadSeek: the buffer answers for the offsets it holds, after a
// Seek too; a small Read after a Seek elsewhere reads only what it asks,
// and the next one reads ahead again.
func TestReadAheadSeek(t *testing.T) {
	data := testData(200_000)
	f, b := countingFile(data, true)
	p := make([]byte, 10)
	read := func(off int64, reads int) {
		t.Helper()
		n, err := io.ReadFull(f, p)
		if err != nil || !bytes.Equal(p[:n], data[off:off+int64(n)]) {
			t.Fatalf("Read at %d = %d, %v, wrong bytes", off, n, err)
		}
		if b.reads != reads {
			t.Fatalf("after the Read at %d, %d blob reads, want %d", off, b.reads, reads)
		}
	}
	seek := func(off int64, whence int, want int64) {
		t.Helper()
		if got, err := f.Seek(off, whence); got != want || err != nil {
			t.Fatalf("Seek(%d, %d) = %d, %v, want %d", off, whence, got, err, want)
		}
	}
	read(0, 1)  // the first read: alone
	read(10, 2) // sequential: read ahead from 10
	read(20, 2)
	seek(13, io.SeekStart, 13)
	read(13, 2) // back, in the window
	seek(100_000, io.SeekStart, 100_000)
	read(100_000, 3) // elsewhere: read alone
	if b.asked != 10+readAhead+10 {
		t.Errorf("blob reads asked for %d bytes, want %d", b.asked, 10+readAhead+10)
	}
	read(100_010, 4) // sequential: read ahead
	read(100_020, 4)
	seek(-5, io.SeekCurrent, 100_025)
	read(100_025, 4)
	seek(-10, io.SeekEnd, 199_990)
	read(199_990, 5)
	if n, err := f.Read(p); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v, want 0, EOF", n, err)
	}
	// ReadAt is served from the window too, and does not move the
	// offset.
	q := make([]byte, 4)
	if n, err := f.ReadAt(q, 120_000); n != 4 || err != nil || !bytes.Equal(q, data[120_000:120_004]) || b.reads != 5 {
		t.Errorf("ReadAt(120,000) = %d, %v, %d blob reads, want 5", n, err, b.reads)
	}
	if off, err := f.Seek(0, io.SeekCurrent); off != int64(len(data)) || err != nil {
		t.Errorf("offset after ReadAt = %d, %v, want %d", off, err, len(data))
	}
	seek(0, io.SeekStart, 0)
	if err := iotest.TestReader(f, data); err != nil {
		t.Error(err)
	}
}

// TestReadAheadErrors: a read ahead that fails on corrupt bytes past the
// caller's is not the caller's failure: the Read asks the blob again for
// its own bytes, and fails only when they fail. An I/O error is the
// read's, at once, with no second read.
func TestReadAheadErrors(t *testing.T) {
	data := testData(100_000)
	read3 := func(f *File) ([]byte, error) {
		var got []byte
		p := make([]byte, 3)
		for {
			n, err := f.Read(p)
			got = append(got, p[:n]...)
			if err != nil {
				return got, err
			}
		}
	}
	f, b := countingFile(data, true)
	b.failAt, b.failErr = 70_000, driver.Corruptf("bad bytes at 70,000")
	got, err := read3(f)
	if !errors.Is(err, driver.ErrCorrupt) || !bytes.Equal(got, data[:69_999]) {
		t.Errorf("read %d bytes, then %v; want 69,999 and ErrCorrupt", len(got), err)
	}
	errDisk := errors.New("disk error")
	f, b = countingFile(data, true)
	b.failAt, b.failErr = 70_000, errDisk
	got, err = read3(f)
	// The first read, then the 3-byte reads whole in the window from 3.
	want := 3 + readAhead/3*3
	if !errors.Is(err, errDisk) || !bytes.Equal(got, data[:want]) || b.reads != 3 {
		t.Errorf("read %d bytes in %d blob reads, then %v; want %d in 3 and the disk error", len(got), b.reads, err, want)
	}
}

// TestReadAheadConcurrent reads one file from several goroutines at once,
// by ReadAt, each sequentially from its own offset (run with -race).
func TestReadAheadConcurrent(t *testing.T) {
	data := testData(300_000)
	f, _ := countingFile(data, true)
	f.blob = &lockedBlob{b: f.blob}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			p := make([]byte, 1+g)
			for off := int64(g * 50_000); off+int64(len(p)) <= int64(len(data)); off += int64(len(p)) {
				n, err := f.ReadAt(p, off)
				if n != len(p) || err != nil && err != io.EOF || !bytes.Equal(p, data[off:off+int64(n)]) {
					errs <- fmt.Errorf("ReadAt(%d, %d) = %d, %v, wrong bytes", len(p), off, n, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// lockedBlob serialises the reads of b, which counts them.
type lockedBlob struct {
	mu sync.Mutex
	b  driver.Blob
}

func (l *lockedBlob) Stat() fs.FileInfo { return l.b.Stat() }
func (l *lockedBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.ReadAt(ctx, p, off)
}
