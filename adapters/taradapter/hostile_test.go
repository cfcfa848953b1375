package taradapter

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// readEverything walks a and reads every regular file, returning the
// contents by name, or the first error.
func readEverything(ctx context.Context, a *Archive) (map[string]string, error) {
	got := map[string]string{}
	err := fs.WalkDir(fstest.TreeFS(a), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		b, err := a.OpenBlob(ctx, name)
		if err != nil {
			return err
		}
		p := make([]byte, b.Stat().Size())
		if n, err := b.ReadAt(ctx, p, 0); n != len(p) || (err != nil && err != io.EOF) {
			return fmt.Errorf("%s: ReadAt = %d, %w", name, n, err)
		}
		got[name] = string(p)
		return nil
	})
	return got, err
}

// endMarker returns the offset of the end-of-archive marker of data.
func endMarker(t testing.TB, data []byte) int64 {
	t.Helper()
	sc, err := scan(context.Background(), bytes.NewReader(data), int64(len(data)), vfs.Limits{}.Effective())
	if err != nil {
		t.Fatal(err)
	}
	m := sc.members[len(sc.members)-1]
	return roundUp(m.dataOff + m.packed)
}

// unsizedInfo describes a blob whose size is not known yet, as a
// decompressed stream's is before its first pass (driver.SizeKnower). Size
// records that it was asked.
type unsizedInfo struct {
	fs.FileInfo
	asked *atomic.Bool
}

func (unsizedInfo) SizeKnown() bool { return false }

func (i unsizedInfo) Size() int64 {
	i.asked.Store(true)
	return i.FileInfo.Size()
}

type unsizedBlob struct {
	driver.Blob
	info unsizedInfo
}

func (b unsizedBlob) Stat() fs.FileInfo { return b.info }

// blobKinds returns data as a blob of known size and as one whose size
// is not known, which the scan must read to io.EOF without asking it.
// check, called when the test is done with the blobs, fails the test if
// the size of the second was asked.
func blobKinds(t testing.TB, data []byte) (kinds []driver.Blob, check func()) {
	asked := new(atomic.Bool)
	b := driver.BytesBlob(data, nil)
	return []driver.Blob{b, unsizedBlob{b, unsizedInfo{b.Stat(), asked}}}, func() {
		t.Helper()
		if asked.Load() {
			t.Errorf("the scan asked the size of a blob whose size is not known yet")
		}
	}
}

// TestTruncation cuts archives at every block boundary and inside
// headers: the scan fails with driver.ErrCorrupt unless the cut leaves the
// end-of-archive marker, and never panics or reads wrong bytes.
func TestTruncation(t *testing.T) {
	for _, file := range []string{"gnu.tar", "posix.tar", "oldgnu.tar", "v7.tar", "bsdtar-pax.tar",
		"sparse-gnu.tar", "sparse-pax0.0.tar", "sparse-pax1.0.tar", "go-links.tar", "go-pax.tar"} {
		t.Run(file, func(t *testing.T) {
			data := readFixture(t, file)
			full, err := readEverything(t.Context(), openFixture(t, file))
			if err != nil && file != "go-links.tar" {
				t.Fatal(err)
			}
			marker := endMarker(t, data)
			for cut := int64(0); cut < int64(len(data)); cut += blockSize {
				for _, c := range []int64{cut, cut + 1, cut + 100, cut + 156, cut + 257, cut + 511} {
					blobs, check := blobKinds(t, data[:c])
					for _, b := range blobs {
						a, err := Open(t.Context(), b, nil)
						if c < marker+blockSize {
							if !errors.Is(err, driver.ErrCorrupt) {
								t.Fatalf("Open(first %d bytes, end marker at %d) error = %v, want driver.ErrCorrupt", c, marker, err)
							}
							continue
						}
						if err != nil {
							t.Fatalf("Open(first %d bytes, past the end marker) error = %v", c, err)
						}
						got, err := readEverything(t.Context(), a)
						if file != "go-links.tar" && (err != nil || len(got) != len(full)) {
							t.Fatalf("cut at %d: read %d files, %v; want %d", c, len(got), err, len(full))
						}
						for name, s := range got {
							if s != full[name] {
								t.Fatalf("cut at %d: %s reads differently", c, name)
							}
						}
					}
					check()
				}
			}
		})
	}
}

// setField writes an octal number into a header field and fixes the
// checksum of the block.
func setField(blk []byte, off, n int, v int64) {
	copy(blk[off:off+n], fmt.Sprintf("%0*o\x00", n-1, v))
	fixChecksum(blk)
}

func fixChecksum(blk []byte) {
	copy(blk[148:156], "        ")
	var sum int64
	for _, c := range blk[:blockSize] {
		sum += int64(c)
	}
	copy(blk[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

// ustarArchive writes members with archive/tar in the ustar format.
func ustarArchive(t testing.TB, files ...string) []byte {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		h := &tar.Header{Name: files[i], Mode: 0o644, Size: int64(len(files[i+1])), Format: tar.FormatUSTAR, ModTime: time.Unix(1e9, 0)}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[i+1]))
	}
	w.Close()
	return buf.Bytes()
}

// TestLyingHeaders checks sizes that lie and bad checksums.
func TestLyingHeaders(t *testing.T) {
	base := ustarArchive(t, "a.txt", strings.Repeat("a", 700), "b.txt", "bbb")
	for _, tc := range []struct {
		name   string
		change func(b []byte)
	}{
		{"size past the end", func(b []byte) { setField(b[:blockSize], 124, 12, 1<<20) }},
		{"size a block short", func(b []byte) { setField(b[:blockSize], 124, 12, 300) }},
		{"size a block long", func(b []byte) { setField(b[:blockSize], 124, 12, 1100) }},
		{"bad checksum", func(b []byte) { b[0] = 'x' }},
		{"bad checksum on the second header", func(b []byte) { b[3*blockSize+1] = 'x' }},
		{"garbage after the first member", func(b []byte) { copy(b[3*blockSize:], bytes.Repeat([]byte{0xff}, blockSize)) }},
		{"zero block then data", func(b []byte) { clear(b[3*blockSize : 4*blockSize]) }},
		{"non-octal size", func(b []byte) { copy(b[124:], "12x4"); fixChecksum(b[:blockSize]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bytes.Clone(base)
			tc.change(data)
			blobs, check := blobKinds(t, data)
			for _, b := range blobs {
				_, err := Open(t.Context(), b, nil)
				if !errors.Is(err, driver.ErrCorrupt) || !errors.Is(err, fs.ErrInvalid) {
					t.Errorf("Open error = %v, want driver.ErrCorrupt", err)
				}
			}
			check()
		})
	}
}

// TestLimits checks each limit and its message.
func TestLimits(t *testing.T) {
	ctx := t.Context()
	gnu := readFixture(t, "gnu.tar")
	for _, tc := range []struct {
		name   string
		data   []byte
		limits vfs.Limits
		field  string
	}{
		{"entries", gnu, vfs.Limits{MaxEntries: 3}, "MaxEntries"},
		{"name length", gnu, vfs.Limits{MaxNameLength: 100}, "MaxNameLength"},
		{"link name length", readFixture(t, "go-links.tar"), vfs.Limits{MaxNameLength: 10}, "MaxNameLength"},
		{"huge pax record", hugePax(t), vfs.Limits{}, "1 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(ctx, driver.BytesBlob(tc.data, nil), &vfs.Options{Limits: tc.limits})
			if !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("Open error = %v, want driver.ErrLimit naming %s", err, tc.field)
			}
		})
	}
	t.Run("file size", func(t *testing.T) {
		a, err := Open(ctx, driver.BytesBlob(gnu, nil), &vfs.Options{Limits: vfs.Limits{MaxFileSize: 100}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.OpenBlob(ctx, "dir/sub/bin.dat"); !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), "MaxFileSize") {
			t.Errorf("OpenBlob(bin.dat) error = %v, want driver.ErrLimit naming MaxFileSize", err)
		}
		if _, err := a.OpenBlob(ctx, "hello.txt"); err != nil {
			t.Errorf("OpenBlob(hello.txt) error = %v", err)
		}
	})
	t.Run("cached error", func(t *testing.T) {
		// A malformed archive fails every call the same way, once scanned.
		b := fixtureBlob(t, "gnu.tar", time.Time{})
		b.Blob = driver.BytesBlob(gnu[:1000], nil)
		a := openShared(b, "memory:/TestLimits/cut.tar", nil)
		_, err1 := a.Stat(ctx, ".")
		n := b.reads.Load()
		_, err2 := a.ReadDir(ctx, ".")
		if !errors.Is(err1, driver.ErrCorrupt) || !errors.Is(err2, driver.ErrCorrupt) || b.reads.Load() != n {
			t.Errorf("errors %v, %v; reads %d then %d", err1, err2, n, b.reads.Load())
		}
	})
}

// hugePax is an archive whose pax header holds a 2 MiB record (which
// archive/tar's writer refuses to write).
func hugePax(t testing.TB) []byte {
	rec := "comment=" + strings.Repeat("x", 2<<20) + "\n"
	rec = fmt.Sprintf("%d %s", len(rec)+8, rec) // 8 digits of length
	blk := make([]byte, blockSize)
	copy(blk, "PaxHeaders/x")
	copy(blk[100:], "0000644\x00")
	copy(blk[257:], "ustar\x0000")
	blk[156] = tar.TypeXHeader
	setField(blk, 124, 12, int64(len(rec)))
	data := append(blk, rec...)
	data = append(data, make([]byte, roundUp(int64(len(data)))-int64(len(data)))...)
	return append(data, ustarArchive(t, "x", "")...)
}

// TestContextCancel checks that a scan stopped by its context is not
// cached as the archive's error.
func TestContextCancel(t *testing.T) {
	b := fixtureBlob(t, "gnu.tar", time.Time{})
	a := openShared(b, "memory:/TestContextCancel/gnu.tar", nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := a.Stat(ctx, "hello.txt"); !errors.Is(err, context.Canceled) {
		t.Errorf("Stat with a cancelled context error = %v, want context.Canceled", err)
	}
	if _, err := a.Stat(t.Context(), "hello.txt"); err != nil {
		t.Errorf("Stat after the cancelled scan error = %v", err)
	}
}

// TestMatch checks the format signature on every fixture and on inputs
// that are not tar archives.
func TestMatch(t *testing.T) {
	for _, file := range []string{"gnu.tar", "oldgnu.tar", "posix.tar", "ustar.tar", "v7.tar", "bsdtar-pax.tar",
		"bsdtar-gnu.tar", "bsdtar-ustar.tar", "sparse-gnu.tar", "fifo.tar", "go-devices.tar", "go-pax.tar"} {
		data := readFixture(t, file)
		if !Match(data[:blockSize], nil, int64(len(data))) {
			t.Errorf("Match(%s) = false, want true", file)
		}
	}
	notTar := map[string][]byte{
		"empty":          nil,
		"zeros":          make([]byte, 1024),
		"text":           bytes.Repeat([]byte("hello world\n"), 100),
		"gzip":           readFixture(t, "gnu.tar.gz"),
		"bad checksum":   func() []byte { b := bytes.Clone(readFixture(t, "gnu.tar")); b[0] ^= 1; return b }(),
		"short":          readFixture(t, "gnu.tar")[:300],
		"ustar magic ok": func() []byte { b := make([]byte, 512); copy(b[257:], "ustar\x0000"); return b }(),
	}
	for name, data := range notTar {
		if Match(data[:min(len(data), blockSize)], nil, int64(len(data))) {
			t.Errorf("Match(%s) = true, want false", name)
		}
	}
}

// TestDetect checks that auto-detection appends pipefs.tar: and reports
// the resolved pipeline.
func TestDetect(t *testing.T) {
	fsys, err := vfs.OpenFS(t.Context(), fileURL(t, "posix.tar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if got, want := fsys.Pipeline().String(), fileURL(t, "posix.tar")+"|pipefs.tar:"; got != want {
		t.Errorf("Pipeline() = %q, want %q", got, want)
	}
}
