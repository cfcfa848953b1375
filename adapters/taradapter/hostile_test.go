package taradapter

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
// headers. An archive cut inside its first header is not a tar archive
// (driver.ErrCorrupt); any other cut lists the members before the cut,
// whose bytes read as in the whole archive; a member the cut runs through
// fails with driver.ErrCorrupt; the number of readable files never falls
// as the cut moves on, and a cut at or past the end-of-archive marker
// reads everything. Nothing panics or reads wrong bytes.
func TestTruncation(t *testing.T) {
	for _, file := range []string{"gnu.tar", "posix.tar", "oldgnu.tar", "v7.tar", "bsdtar-pax.tar",
		"sparse-gnu.tar", "sparse-pax0.0.tar", "sparse-pax1.0.tar", "go-links.tar", "go-pax.tar"} {
		t.Run(file, func(t *testing.T) {
			data := readFixture(t, file)
			full, bad := readSome(t, openFixture(t, file))
			if len(bad) > 0 && file != "go-links.tar" {
				t.Fatal(bad)
			}
			marker := endMarker(t, data)
			sc, err := scan(t.Context(), bytes.NewReader(data), int64(len(data)), vfs.Limits{}.Effective())
			if err != nil {
				t.Fatal(err)
			}
			first := sc.members[0].dataOff // the first member's header ends here
			readable := 0
			for cut := int64(0); cut < int64(len(data)); cut += blockSize {
				for _, c := range []int64{cut, cut + 1, cut + 100, cut + 156, cut + 257, cut + 511} {
					blobs, check := blobKinds(t, data[:c])
					n := -1 // files read; stays -1 if Open fails
					for _, b := range blobs {
						a, err := Open(t.Context(), b, nil)
						if err != nil {
							if c == 0 || c >= first || !errors.Is(err, driver.ErrCorrupt) {
								t.Fatalf("Open(first %d bytes, first header ends at %d) error = %v", c, first, err)
							}
							continue
						}
						got, bad := readSome(t, a)
						for name, s := range got {
							// go-links.tar replaces target.txt later on,
							// and hard links copy the bytes it had then.
							if s != full[name] && file != "go-links.tar" {
								t.Fatalf("cut at %d: %s reads differently", c, name)
							}
						}
						for name, err := range bad {
							if !errors.Is(err, driver.ErrCorrupt) && !(file == "go-links.tar" && full[name] == "") {
								t.Fatalf("cut at %d: %s: %v, want driver.ErrCorrupt", c, name, err)
							}
						}
						if n >= 0 && len(got) != n {
							t.Fatalf("cut at %d: %d files read from one blob, %d from the other", c, len(got), n)
						}
						n = len(got)
					}
					if n < 0 {
						check()
						continue
					}
					if n < readable && file != "go-links.tar" { // its later entries replace earlier ones
						t.Fatalf("cut at %d: %d files read, %d at an earlier cut", c, n, readable)
					}
					readable = max(readable, n)
					if c >= marker && n != len(full) {
						t.Fatalf("cut at %d (end marker at %d): read %d files, want %d", c, marker, n, len(full))
					}
					check()
				}
			}
		})
	}
}

// readSome reads every regular file of a, returning the contents of those
// that read and the errors of those that do not.
func readSome(t *testing.T, a *Archive) (map[string]string, map[string]error) {
	ctx := t.Context()
	got, bad := map[string]string{}, map[string]error{}
	err := fs.WalkDir(fstest.TreeFS(a), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		b, err := a.OpenBlob(ctx, name)
		if err != nil {
			bad[name] = err
			return nil
		}
		p := make([]byte, b.Stat().Size())
		if n, err := b.ReadAt(ctx, p, 0); n != len(p) || (err != nil && err != io.EOF) {
			bad[name] = fmt.Errorf("ReadAt = %d, %w", n, err)
			return nil
		}
		got[name] = string(p)
		return nil
	})
	if err != nil {
		t.Fatalf("WalkDir: %v", err)
	}
	return got, bad
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

// TestLyingHeaders checks sizes that lie and bad checksums. A bad first
// header is not a tar archive; bad bytes later end the listing there,
// keeping the members before them, and Omitted says where and why. A zero
// block ends the archive, whatever follows, as it does for bsdtar.
func TestLyingHeaders(t *testing.T) {
	base := ustarArchive(t, "a.txt", strings.Repeat("a", 700), "b.txt", "bbb")
	for _, tc := range []struct {
		name   string
		change func(b []byte)
		ok     string // "": Open fails; else the files that read, and how
		end    bool   // Omitted reports an early end
	}{
		{"size past the end", func(b []byte) { setField(b[:blockSize], 124, 12, 1<<20) }, "a.txt:corrupt", true},
		{"size a block short", func(b []byte) { setField(b[:blockSize], 124, 12, 300) }, "a.txt:300", true},
		{"size a block long", func(b []byte) { setField(b[:blockSize], 124, 12, 1100) }, "a.txt:1100", true},
		{"bad checksum", func(b []byte) { b[0] = 'x' }, "", false},
		{"bad checksum on the second header", func(b []byte) { b[3*blockSize+1] = 'x' }, "a.txt:700", true},
		{"garbage after the first member", func(b []byte) { copy(b[3*blockSize:], bytes.Repeat([]byte{0xff}, blockSize)) }, "a.txt:700", true},
		{"zero block then data", func(b []byte) { clear(b[3*blockSize : 4*blockSize]) }, "a.txt:700", false},
		{"non-octal size", func(b []byte) { copy(b[124:], "12x4"); fixChecksum(b[:blockSize]) }, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bytes.Clone(base)
			tc.change(data)
			blobs, check := blobKinds(t, data)
			for _, b := range blobs {
				a, err := Open(t.Context(), b, nil)
				if tc.ok == "" {
					if !errors.Is(err, driver.ErrCorrupt) || !errors.Is(err, fs.ErrInvalid) {
						t.Errorf("Open error = %v, want driver.ErrCorrupt", err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Open error = %v", err)
				}
				got, bad := readSome(t, a)
				var desc []string
				for name, s := range got {
					desc = append(desc, fmt.Sprintf("%s:%d", name, len(s)))
				}
				for name, err := range bad {
					if !errors.Is(err, driver.ErrCorrupt) {
						t.Errorf("%s: %v, want driver.ErrCorrupt", name, err)
					}
					desc = append(desc, name+":corrupt")
				}
				if strings.Join(desc, " ") != tc.ok {
					t.Errorf("files %q, want %q", desc, tc.ok)
				}
				omitted, err := a.Omitted(t.Context())
				if err != nil || tc.end != (len(omitted) == 1 && omitted[0].Name == "" && errors.Is(omitted[0].Err, driver.ErrCorrupt)) {
					t.Errorf("Omitted() = %+v, %v; want an early end: %v", omitted, err, tc.end)
				}
				if tc.end {
					_, err := a.Stat(t.Context(), "b.txt")
					if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "ends early") {
						t.Errorf("Stat(b.txt) error = %v, want fs.ErrNotExist and driver.ErrCorrupt saying the listing ended early", err)
					}
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
		b.Blob = driver.BytesBlob(bytes.Repeat([]byte{0xff}, 1024), nil) // not a tar archive
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

// TestTruncatedTarGz cuts a .tar.gz in the middle and reads it through
// |gzip:|pipefs.tar:. The members before the cut are listed, but no read
// of them can reach the gzip trailer whose CRC-32 would vouch for their
// bytes, so every read fails, as a member the cut runs through and the
// names after it do, with errors that say the archive is damaged
// (driver.ErrCorrupt): no unverified byte reaches the caller.
func TestTruncatedTarGz(t *testing.T) {
	gz := readFixture(t, "gnu.tar.gz")
	whole := readFixture(t, "gnu.tar")
	sc, err := scan(t.Context(), bytes.NewReader(whole), int64(len(whole)), vfs.Limits{}.Effective())
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(gz) / 3, len(gz) / 2, len(gz) * 3 / 4} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			// What gzip decodes from the cut file.
			zr, err := gzip.NewReader(bytes.NewReader(gz[:cut]))
			if err != nil {
				t.Fatal(err)
			}
			prefix, err := io.ReadAll(zr)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("gzip reads %d bytes of the cut file, %v; want io.ErrUnexpectedEOF", len(prefix), err)
			}
			path := filepath.Join(t.TempDir(), "cut.tar.gz")
			if err := os.WriteFile(path, gz[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			fsys, err := vfs.OpenFS(t.Context(), "file:"+filepath.ToSlash(path)+"|gzip:|pipefs.tar:", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			var whole, cutThrough, after int
			for _, m := range sc.members {
				if m.hdr.Typeflag != tar.TypeReg {
					continue
				}
				name, _ := cleanName(m.hdr.Name)
				got, err := fsys.ReadFile(name)
				switch end := m.dataOff + m.packed; {
				case end <= int64(len(prefix)):
					whole++
					if _, serr := fsys.Stat(name); serr != nil {
						t.Errorf("%s (data ends at %d, the cut at %d): not listed: %v", name, end, len(prefix), serr)
					}
					if !errors.Is(err, driver.ErrCorrupt) || len(got) > 0 {
						t.Errorf("%s (data ends at %d, the cut at %d, unverifiable): %d bytes, %v; want none and driver.ErrCorrupt", name, end, len(prefix), len(got), err)
					}
				default:
					if m.hdrOff+blockSize <= int64(len(prefix)) {
						cutThrough++
					} else {
						after++
					}
					if !errors.Is(err, driver.ErrCorrupt) {
						t.Errorf("%s (data ends at %d, the cut at %d): %v, want driver.ErrCorrupt", name, end, len(prefix), err)
					}
				}
			}
			if whole == 0 || after == 0 {
				t.Errorf("cut at %d: %d members before the cut, %d through it, %d after; want some before and after", cut, whole, cutThrough, after)
			}
			// The listing says where it ended, and in which member.
			var o driver.Omitter
			if !fsys.As(&o) {
				t.Fatal("the tree is no Omitter")
			}
			om, err := o.Omitted(t.Context())
			if err != nil || len(om) != 1 || !errors.Is(om[0].Err, driver.ErrCorrupt) {
				t.Fatalf("Omitted() = %+v, %v; want the early end with its error", om, err)
			}
			for _, m := range sc.members {
				if m.dataOff < int64(len(prefix)) && m.dataOff+m.packed > int64(len(prefix)) {
					if want := fmt.Sprintf("ends inside member %q", m.hdr.Name); !strings.Contains(om[0].Reason, want) {
						t.Errorf("Omitted()[0].Reason = %q, want it to say %s", om[0].Reason, want)
					}
				}
			}
		})
	}
}

// TestDamagedTrailer: a .tar.gz whose gzip trailer does not match its
// data (the archive's bytes all decode) lists every member, and reports
// the damage the listing met at the stream's end (driver.Omission.Err);
// no member reads.
func TestDamagedTrailer(t *testing.T) {
	gz := bytes.Clone(readFixture(t, "gnu.tar.gz"))
	gz[len(gz)-6] ^= 1 // the CRC-32
	path := filepath.Join(t.TempDir(), "bad.tar.gz")
	if err := os.WriteFile(path, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := vfs.OpenFS(t.Context(), "file:"+filepath.ToSlash(path)+"|gzip:|pipefs.tar:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	files := 0
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		if info, err := d.Info(); err != nil || info.Size() == 0 {
			return err // an empty member has no bytes to vouch for
		}
		files++
		if b, err := fs.ReadFile(fsys, name); !errors.Is(err, driver.ErrCorrupt) || len(b) > 0 {
			t.Errorf("ReadFile(%s): %d bytes, %v; want none and driver.ErrCorrupt", name, len(b), err)
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("walk: %d files, %v", files, err)
	}
	var o driver.Omitter
	fsys.As(&o)
	om, err := o.Omitted(t.Context())
	if err != nil || len(om) != 1 || !errors.Is(om[0].Err, driver.ErrCorrupt) || !strings.Contains(om[0].Reason, "CRC-32") {
		t.Errorf("Omitted() = %+v, %v; want the CRC-32 failure", om, err)
	}
}

// TestPaxSize checks that a pax size record overrides the header's size
// field, as it does for files over 8 GiB, whose field cannot hold it.
func TestPaxSize(t *testing.T) {
	base := ustarArchive(t, "a.txt", strings.Repeat("a", 700), "b.txt", "bbb")
	setField(base[:blockSize], 124, 12, 0)
	rec := "12 size=700\n"
	pax := make([]byte, 2*blockSize)
	copy(pax, "PaxHeaders/a.txt")
	pax[156] = 'x'
	copy(pax[257:], "ustar\x0000")
	copy(pax[blockSize:], rec)
	setField(pax[:blockSize], 124, 12, int64(len(rec)))
	data := append(pax, base...)
	blobs, check := blobKinds(t, data)
	for _, b := range blobs {
		a, err := Open(t.Context(), b, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readEverything(t.Context(), a)
		if err != nil || got["a.txt"] != strings.Repeat("a", 700) || got["b.txt"] != "bbb" {
			t.Errorf("read %d files, a.txt %d bytes, b.txt %q, %v", len(got), len(got["a.txt"]), got["b.txt"], err)
		}
	}
	check()
}

// TestWrongAdapter reads a gzip as a tar: the error says what the data
// looks like and which adapter reads it.
func TestWrongAdapter(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(bytes.Repeat([]byte("not a tar header "), 100))
	zw.Close()
	dir := fstest.MapFiles(t, map[string][]byte{"x.tar.gz": z.Bytes()})
	_, err := vfs.OpenFS(context.Background(), "memory:/"+dir+"/x.tar.gz|pipefs.tar:", nil)
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "not a tar archive") || !strings.Contains(err.Error(), "try |gzip:") {
		t.Errorf("a gzip read as a tar: %v, want ErrCorrupt saying to try |gzip:", err)
	}
}
