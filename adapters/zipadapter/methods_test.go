package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/vfs/driver"

	pfstest "github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// A methodFixture is a zip of testdata/methods, made by mkmethods.sh.
type methodFixture struct {
	name    string
	method  uint16   // of seq.txt
	files   []string // members, all of them files of methods/src
	oracles []string // tools that extract it: "7z", "bsdtar"
}

var methodFixtures = []methodFixture{
	{"7z-deflate64.zip", methodDeflate64, []string{"hello.txt", "empty.txt", "seq.txt", "dir/rep.bin"}, []string{"7z"}},
	{"7z-bzip2.zip", methodBzip2, nil, []string{"7z", "bsdtar"}},
	{"infozip-bzip2.zip", methodBzip2, nil, []string{"7z", "bsdtar"}},
	{"python-bzip2.zip", methodBzip2, nil, []string{"7z", "bsdtar"}},
	{"7z-lzma.zip", methodLZMA, nil, []string{"7z", "bsdtar"}},
	{"7z-lzma-noeos.zip", methodLZMA, nil, []string{"7z", "bsdtar"}},
	{"python-lzma.zip", methodLZMA, nil, []string{"7z", "bsdtar"}},
	{"7z-xz.zip", methodXZ, nil, []string{"7z", "bsdtar"}},
	{"go-xz.zip", methodXZ, nil, []string{"7z", "bsdtar"}},
	{"go-zstd.zip", methodZstd, nil, []string{"7z", "bsdtar"}},
	{"go-zstd-frames.zip", methodZstd, nil, []string{"7z", "bsdtar"}},
	{"go-zstd20.zip", methodZstdOld, nil, nil},
}

func (f methodFixture) members() []string {
	if f.files != nil {
		return f.files
	}
	return []string{"hello.txt", "empty.txt", "seq.txt"}
}

func methodSrc(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "methods", "src", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openMethods(t testing.TB, name string, o *vfs.Options) (*Archive, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "methods", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), driver.BytesBlob(b, nil), o)
	if err != nil {
		t.Fatalf("Open(%s) = %v", name, err)
	}
	return a, b
}

// readMethod reads a member whole with ReadAt in order.
func readMethod(a *Archive, name string) ([]byte, error) {
	ctx := context.Background()
	b, err := a.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	return io.ReadAll(io.NewSectionReader(driver.ReaderAt(ctx, b), 0, b.Stat().Size()))
}

// TestMethodsAgainstSources reads every member of every fixture three
// ways (ReadAt in order, a stream, and ReadAt backwards in pieces) and
// compares it with the file the tool compressed.
func TestMethodsAgainstSources(t *testing.T) {
	ctx := context.Background()
	for _, f := range methodFixtures {
		t.Run(f.name, func(t *testing.T) {
			a, _ := openMethods(t, f.name, nil)
			for _, m := range f.members() {
				want := methodSrc(t, m)
				got, err := readMethod(a, m)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s: read %d bytes, %v; want the %d of the source", m, len(got), err, len(want))
				}
				b, err := a.OpenBlob(ctx, m)
				if err != nil {
					t.Fatal(err)
				}
				if n := b.Stat().Size(); n != int64(len(want)) {
					t.Errorf("%s: size %d, want %d", m, n, len(want))
				}
				if s, ok := b.(driver.Streamer); ok { // not a stored member
					rc, err := s.Stream(ctx, 0)
					if err != nil {
						t.Fatal(err)
					}
					got, err = io.ReadAll(rc)
					rc.Close()
					if err != nil || !bytes.Equal(got, want) {
						t.Errorf("%s: stream read %d bytes, %v", m, len(got), err)
					}
				}
				// Backwards, in pieces of 1000: every read starts over or
				// resumes, and is checked.
				for off := (int64(len(want)) / 1000) * 1000; off >= 0 && len(want) > 0; off -= 1000 {
					p := make([]byte, 1000)
					n, err := b.ReadAt(ctx, p, off)
					if (err != nil && err != io.EOF) || !bytes.Equal(p[:n], want[off:min(off+1000, int64(len(want)))]) {
						t.Fatalf("%s: ReadAt(%d) = %d, %v", m, off, n, err)
					}
				}
				if fi, err := a.Stat(ctx, m); err != nil || fi.Sys() == nil {
					t.Errorf("Stat(%s) = %v, %v", m, fi, err)
				}
			}
			h := a.header(a.lookup("seq.txt").rec)
			if h.method != f.method {
				t.Errorf("seq.txt has method %d, want %d: the fixture does not test what it should", h.method, f.method)
			}
		})
	}
}

// TestMethodsAgainstTools compares every member with what 7z and bsdtar
// extract from the same fixture.
func TestMethodsAgainstTools(t *testing.T) {
	for _, tool := range []string{"7z", "bsdtar"} {
		t.Run(tool, func(t *testing.T) {
			pfstest.NeedTool(t, tool)
			for _, f := range methodFixtures {
				if !strings.Contains(strings.Join(f.oracles, " "), tool) {
					continue
				}
				a, _ := openMethods(t, f.name, nil)
				dir := t.TempDir()
				zip, _ := filepath.Abs(filepath.Join("testdata", "methods", f.name))
				cmd := exec.Command("bsdtar", "-xf", zip, "-C", dir)
				if tool == "7z" {
					cmd = exec.Command("7z", "x", "-bd", "-y", "-o"+dir, zip)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s on %s: %v\n%s", tool, f.name, err, out)
				}
				for _, m := range f.members() {
					want, err := os.ReadFile(filepath.Join(dir, m))
					if err != nil {
						t.Fatal(err)
					}
					got, err := readMethod(a, m)
					if err != nil || !bytes.Equal(got, want) {
						t.Errorf("%s %s: read %d bytes, %v; %s extracted %d", f.name, m, len(got), err, tool, len(want))
					}
				}
			}
		})
	}
}

// TestMethodsRefused checks that PPMd and encrypted members are listed and
// described, and that opening them names the method or the encryption.
func TestMethodsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		zip, member string
		says        []string
	}{
		{"7z-ppmd.zip", "seq.txt", []string{"method 98", "PPMd", "7z x"}},
		{"7z-aes.zip", "seq.txt", []string{"AES-256", "method 99", "method 8 (DEFLATE)", "passphrase"}},
		{"7z-aes.zip", "hello.txt", []string{"AES-256", "method 0 (STORED)"}},
		{"7z-zipcrypto.zip", "seq.txt", []string{"ZipCrypto", "passphrase"}},
	} {
		a, _ := openMethods(t, tc.zip, nil)
		fi, err := a.Stat(ctx, tc.member)
		if err != nil || fi.Size() != int64(len(methodSrc(t, tc.member))) {
			t.Errorf("%s: Stat(%s) = %v, %v", tc.zip, tc.member, fi, err)
		}
		entries, err := a.ReadDir(ctx, ".")
		if err != nil || len(entries) != 3 {
			t.Errorf("%s: ReadDir = %d entries, %v", tc.zip, len(entries), err)
		}
		_, err = a.OpenBlob(ctx, tc.member)
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("%s: OpenBlob(%s) = %v, want ErrUnsupported", tc.zip, tc.member, err)
		}
		for _, s := range tc.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not say %q", tc.zip, err, s)
			}
		}
	}
}

// dataRange returns where the compressed data of member lies in the
// archive z.
func dataRange(t *testing.T, a *Archive, member string) (int64, int64) {
	t.Helper()
	e := a.lookup(member)
	h := a.header(e.rec)
	off, err := a.dataOffset(context.Background(), &h, &a.recs[e.rec])
	if err != nil {
		t.Fatal(err)
	}
	return off, int64(h.csize)
}

// TestMethodsCorrupt damages the compressed data, and then the CRC-32 in
// the central directory, of seq.txt in each fixture: every read fails
// with driver.ErrCorrupt and returns no bytes of the bad data.
func TestMethodsCorrupt(t *testing.T) {
	ctx := context.Background()
	for _, f := range methodFixtures {
		t.Run(f.name, func(t *testing.T) {
			a, z := openMethods(t, f.name, nil)
			off, n := dataRange(t, a, "seq.txt")
			e := a.lookup("seq.txt")
			crcAt := int64(a.recs[e.rec].pos) + 16 // in a.dir, at the end of z
			dirStart := int64(len(z)) - int64(len(a.dir))
			for _, damage := range []struct {
				what string
				at   int64
			}{
				{"data", off + n/2},
				{"CRC-32", dirStart + crcAt},
			} {
				bad := bytes.Clone(z)
				bad[damage.at] ^= 0x55
				a, err := Open(ctx, driver.BytesBlob(bad, nil), nil)
				if err != nil {
					t.Fatal(err)
				}
				b, err := a.OpenBlob(ctx, "seq.txt")
				if err != nil {
					if errors.Is(err, driver.ErrCorrupt) {
						continue
					}
					t.Fatalf("%s: OpenBlob = %v", damage.what, err)
				}
				p := make([]byte, 100)
				if k, err := b.ReadAt(ctx, p, 0); !errors.Is(err, driver.ErrCorrupt) || k != 0 {
					t.Errorf("%s: ReadAt(0) = %d, %v, want 0 and ErrCorrupt", damage.what, k, err)
				}
				rc, err := b.(driver.Streamer).Stream(ctx, 0)
				if err == nil {
					var got []byte
					got, err = io.ReadAll(rc)
					rc.Close()
					if len(got) == int(b.Stat().Size()) {
						t.Errorf("%s: a stream delivered all %d bytes", damage.what, len(got))
					}
				}
				if !errors.Is(err, driver.ErrCorrupt) {
					t.Errorf("%s: stream: %v, want ErrCorrupt", damage.what, err)
				}
			}
		})
	}
}

// TestMethodsLimits checks the limits: declared size, ratio, and the
// dictionary or window a member asks for.
func TestMethodsLimits(t *testing.T) {
	for _, tc := range []struct {
		zip  string
		lim  vfs.Limits
		says string
	}{
		{"7z-bzip2.zip", vfs.Limits{MaxFileSize: 1000}, "MaxFileSize"},
		{"7z-lzma.zip", vfs.Limits{MaxWindow: 4096}, "MaxWindow"},
		{"python-lzma.zip", vfs.Limits{MaxWindow: 4096}, "MaxWindow"},
		{"go-xz.zip", vfs.Limits{MaxWindow: 1}, "MaxWindow"},
		{"7z-xz.zip", vfs.Limits{MaxWindow: 1}, "MaxWindow"},
		{"go-zstd.zip", vfs.Limits{MaxWindow: 1024}, "MaxWindow"},
	} {
		a, _ := openMethods(t, tc.zip, &vfs.Options{Limits: tc.lim})
		_, err := readMethod(a, "seq.txt")
		if !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s with %+v: %v, want ErrLimit naming %s", tc.zip, tc.lim, err, tc.says)
		}
		if got, err := readMethod(a, "hello.txt"); tc.lim.MaxWindow == 0 && (err != nil || string(got) != "hello, zip methods\n") {
			t.Errorf("%s: hello.txt = %q, %v: a limit on one member fails another", tc.zip, got, err)
		}
	}
}

// FuzzMethods decodes arbitrary compressed data as each method pipefs
// decodes besides STORED and DEFLATE, in a zip that declares arbitrary
// sizes, CRC-32 and flags: no panic, reads bounded by the declared size,
// and every failure of a documented kind. The seeds are the members of the
// fixtures.
func FuzzMethods(f *testing.F) {
	for _, fx := range methodFixtures {
		a, z := openMethods(f, fx.name, nil)
		for _, m := range fx.members() {
			e := a.lookup(m)
			h := a.header(e.rec)
			off, err := a.dataOffset(context.Background(), &h, &a.recs[e.rec])
			if err != nil || h.method == 0 {
				continue
			}
			f.Add(h.method, uint32(h.usize), h.crc, h.flags, z[off:off+int64(h.csize)])
		}
	}
	o := &vfs.Options{Limits: vfs.Limits{MaxFileSize: 1 << 20, MaxWindow: 1 << 20}}
	f.Fuzz(func(t *testing.T, method uint16, usize, crc uint32, flags uint16, data []byte) {
		if _, ok := codecs[method]; !ok {
			return
		}
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		fw, err := w.CreateRaw(&zip.FileHeader{Name: "m", Method: method, Flags: flags &^ 1,
			CRC32: crc, CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(usize % (2 << 20))})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
		w.Close()
		ctx := context.Background()
		a, err := Open(ctx, driver.BytesBlob(buf.Bytes(), nil), o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := a.OpenBlob(ctx, "m")
		if err != nil {
			checkFuzzErr(t, err)
			return
		}
		got, err := io.ReadAll(io.NewSectionReader(driver.ReaderAt(ctx, b), 0, b.Stat().Size()))
		if err != nil {
			checkFuzzErr(t, err)
		} else if uint32(len(got)) != usize%(2<<20) || crc != 0 && crc32.ChecksumIEEE(got) != crc {
			t.Fatalf("read %d bytes with CRC-32 %08x; the header says %d, %08x", len(got), crc32.ChecksumIEEE(got), usize, crc)
		}
		rc, err := b.(driver.Streamer).Stream(ctx, 0)
		if err != nil {
			checkFuzzErr(t, err)
			return
		}
		defer rc.Close()
		if _, err := io.Copy(io.Discard, rc); err != nil {
			checkFuzzErr(t, err)
		}
	})
}

// rawZip returns a zip of one member with the given compressed data and
// header fields.
func rawZip(t *testing.T, method uint16, data []byte, usize uint64, crc uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	fw, err := w.CreateRaw(&zip.FileHeader{Name: "m", Method: method, CRC32: crc,
		CompressedSize64: uint64(len(data)), UncompressedSize64: usize})
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMethodsRatio reads 8 MiB of zeros that Zstandard codes in a few
// hundred bytes: within the default RatioFloor it reads; with the ratio
// applied from the first byte, opening fails with ErrLimit. A header
// that declares less than the data decodes to is corrupt, and so is one
// that declares more.
func TestMethodsRatio(t *testing.T) {
	ctx := context.Background()
	zeros := make([]byte, 8<<20)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	data := enc.EncodeAll(zeros, nil)
	crc := crc32.ChecksumIEEE(zeros)
	open := func(usize uint64, lim vfs.Limits) (driver.Blob, error) {
		a, err := Open(ctx, driver.BytesBlob(rawZip(t, methodZstd, data, usize, crc), nil), &vfs.Options{Limits: lim})
		if err != nil {
			t.Fatal(err)
		}
		return a.OpenBlob(ctx, "m")
	}
	b, err := open(uint64(len(zeros)), vfs.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.NewSectionReader(driver.ReaderAt(ctx, b), 0, b.Stat().Size()))
	if err != nil || !bytes.Equal(got, zeros) {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if _, err := open(uint64(len(zeros)), vfs.Limits{RatioFloor: 1}); !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), "MaxRatio") {
		t.Errorf("with RatioFloor 1: %v, want ErrLimit naming MaxRatio", err)
	}
	for _, usize := range []uint64{1 << 20, 9 << 20} {
		b, err := open(usize, vfs.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 4096)
		if n, err := b.ReadAt(ctx, p, 0); !errors.Is(err, driver.ErrCorrupt) || n != 0 {
			t.Errorf("declared %d: ReadAt = %d, %v, want 0 and ErrCorrupt", usize, n, err)
		}
	}
}
