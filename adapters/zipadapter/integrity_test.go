package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

var errDisk = errors.New("disk on fire")

// faultBlob fails every read that covers byte at with err (errDisk if
// nil).
type faultBlob struct {
	driver.Blob
	at  int64
	err error
}

func (b faultBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off > b.at || off+int64(len(p)) <= b.at {
		return b.Blob.ReadAt(ctx, p, off)
	}
	n, _ := b.Blob.ReadAt(ctx, p[:b.at-off], off)
	if b.err != nil {
		return n, b.err
	}
	return n, errDisk
}

// readMember opens the archive and reads member name through to its end
// with ReadAt in chunks, as a sequential reader does.
func readMember(ctx context.Context, b driver.Blob, name string, chunk int) ([]byte, error) {
	a, err := Open(ctx, b, nil)
	if err != nil {
		return nil, err
	}
	m, err := a.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	if c, ok := m.(io.Closer); ok {
		defer c.Close()
	}
	var out []byte
	buf := make([]byte, chunk)
	for off := int64(0); ; {
		n, err := m.ReadAt(ctx, buf, off)
		out = append(out, buf[:n]...)
		off += int64(n)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestStoredCRC: a flipped byte in a stored member fails a read through
// to the end, small member or large, without giving the last bytes; a
// read at random still reads the bytes asked for.
func TestStoredCRC(t *testing.T) {
	for _, size := range []int{len(text), 3 << 20} {
		body := bytes.Repeat(text, size/len(text)+1)[:size]
		good := makeZip(t, entrySpec{"s", body, zip.Store})
		got, err := readMember(context.Background(), driver.BytesBlob(good, nil), "s", 64<<10)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%d bytes: good member read %d bytes, %v", size, len(got), err)
		}
		bad := bytes.Clone(good)
		l := walk(t, bad)
		bad[l.data[0]+size/2] ^= 1
		for _, chunk := range []int{1000, 64 << 10, size + 1} {
			got, err := readMember(context.Background(), driver.BytesBlob(bad, nil), "s", chunk)
			if !errors.Is(err, driver.ErrCorrupt) || len(got) >= size {
				t.Errorf("%d bytes, chunks of %d: flipped byte read %d bytes, %v; want ErrCorrupt before the end", size, chunk, len(got), err)
			}
		}
		a, err := Open(context.Background(), driver.BytesBlob(bad, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := a.OpenBlob(context.Background(), "s")
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 100)
		if n, err := m.ReadAt(context.Background(), p, int64(size/2)-50); n != 100 || err != nil {
			t.Errorf("%d bytes: ReadAt in the middle = %d, %v; want 100 bytes (random access is unchecked)", size, n, err)
		}
	}
}

// TestStoredCRCFile: through vfs, io.ReadAll and io.Copy of a stored
// member with a flipped byte fail.
func TestStoredCRCFile(t *testing.T) {
	bad := makeZip(t, entrySpec{"s", text, zip.Store})
	bad[walk(t, bad).data[0]+10] ^= 1
	prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": bad})
	for _, how := range []string{"ReadAll", "Copy"} {
		f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/a.zip|zip:s", nil)
		if err != nil {
			t.Fatal(err)
		}
		if how == "ReadAll" {
			_, err = io.ReadAll(f)
		} else {
			_, err = io.Copy(io.Discard, f)
		}
		f.Close()
		if !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s = %v, want ErrCorrupt", how, err)
		}
	}
}

// TestInputErrors: an error of the blob under the archive, wherever it
// strikes, and a cancelled context come back as themselves, never as
// corrupt data.
func TestInputErrors(t *testing.T) {
	z := makeZip(t, entrySpec{"s", text, zip.Store}, entrySpec{"d", text, zip.Deflate})
	l := walk(t, z)
	for _, tc := range []struct {
		at   int
		hits string // the members whose read surely needs the byte
	}{
		{l.eocd + 5, "sd"}, {l.records[0] + 3, "sd"}, {l.records[1] + 40, "sd"},
		{l.data[0] + 20, "s"}, {l.locals[1] + 2, "d"}, {l.data[1] + 20, "d"},
	} {
		for _, name := range []string{"s", "d"} {
			_, err := readMember(context.Background(), faultBlob{driver.BytesBlob(z, nil), int64(tc.at), nil}, name, 1000)
			if err == nil && !strings.Contains(tc.hits, name) {
				continue // a read that may not need the byte
			}
			if !errors.Is(err, errDisk) || errors.Is(err, driver.ErrCorrupt) {
				t.Errorf("fault at %d, member %s: %v; want errDisk, not ErrCorrupt", tc.at, name, err)
			}
		}
	}
	// An input error whose text archive/zip might have written, or that
	// archive/zip returns for short data, is still the input's.
	for _, e := range []error{io.ErrUnexpectedEOF, errors.New("zip: upstream connection reset")} {
		_, err := readMember(context.Background(), faultBlob{driver.BytesBlob(z, nil), int64(l.records[0]) + 3, e}, "s", 1000)
		if !errors.Is(err, e) || errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("input error %q: %v; want it, not ErrCorrupt", e, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readMember(ctx, driver.BytesBlob(z, nil), "d", 1000); !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("cancelled: %v; want context.Canceled, not ErrCorrupt", err)
	}
}

// nthBlob fails its read number fail (from 0) with err; reads counts them.
type nthBlob struct {
	driver.Blob
	reads *int
	fail  int
	err   error
}

func (b nthBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	*b.reads++
	if *b.reads-1 == b.fail {
		return 0, b.err
	}
	return b.Blob.ReadAt(ctx, p, off)
}

// TestOpenReadErrors fails each read that Open makes in turn, archive/zip's
// included: the error is the blob's, whatever its text.
func TestOpenReadErrors(t *testing.T) {
	z := makeZip(t, entrySpec{"s", text, zip.Store}, entrySpec{"d", text, zip.Deflate})
	var total int
	if _, err := Open(context.Background(), nthBlob{driver.BytesBlob(z, nil), &total, -1, nil}, nil); err != nil {
		t.Fatal(err)
	}
	for _, e := range []error{errDisk, io.ErrUnexpectedEOF, errors.New("zip: upstream connection reset")} {
		for i := range total {
			var n int
			_, err := Open(context.Background(), nthBlob{driver.BytesBlob(z, nil), &n, i, e}, nil)
			if !errors.Is(err, e) || errors.Is(err, driver.ErrCorrupt) {
				t.Errorf("read %d of %d fails with %q: Open = %v; want it, not ErrCorrupt", i, total, e, err)
			}
		}
	}
}
