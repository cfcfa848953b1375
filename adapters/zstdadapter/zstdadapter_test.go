package zstdadapter_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	seekable "github.com/SaveTheRbtz/zstd-seekable-format-go/pkg"
	"github.com/klauspost/compress/zstd"

	_ "github.com/pipefs/pipefs/adapters/taradapter"
	"github.com/pipefs/pipefs/adapters/zstdadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

func oracle(t testing.TB, z []byte) []byte {
	t.Helper()
	d, err := zstd.NewReader(bytes.NewReader(z), zstd.WithDecoderMaxWindow(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	b, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func open(t testing.TB, z []byte, o *vfs.Options) (*vfs.File, error) {
	t.Helper()
	prefix := fstest.MapFiles(t, map[string][]byte{"x.zst": z})
	return vfs.Open(context.Background(), "memory:/"+prefix+"/x.zst|zstd:", o)
}

func readAll(t testing.TB, z []byte, o *vfs.Options) ([]byte, error) {
	t.Helper()
	f, err := open(t, z, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func TestFixtures(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.zst")
	if len(names) < 5 {
		t.Fatalf("fixtures missing: %v", names)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			z, _ := os.ReadFile(name)
			want := oracle(t, z)
			got, err := readAll(t, z, nil)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes, err %v; want %d", len(got), err, len(want))
			}
		})
	}
}

func encode(data []byte, opts ...zstd.EOption) []byte {
	e, _ := zstd.NewWriter(nil, opts...)
	return e.EncodeAll(data, nil)
}

func corpus(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefgh ij\n"[r.IntN(12)]
	}
	return b
}

func seekableBytes(t testing.TB, data []byte, frame int) []byte {
	var buf bytes.Buffer
	enc, _ := zstd.NewWriter(nil)
	w, err := seekable.NewWriter(&buf, enc)
	if err != nil {
		t.Fatal(err)
	}
	for len(data) > 0 {
		k := min(frame, len(data))
		w.Write(data[:k])
		data = data[k:]
	}
	w.Close()
	return buf.Bytes()
}

// TestRandomAccess reads at random offsets of multi-frame, seekable and
// single-frame files.
func TestRandomAccess(t *testing.T) {
	data := corpus(1 << 20)
	var multi []byte
	for off := 0; off < len(data); off += 100 << 10 {
		multi = append(multi, encode(data[off:min(off+100<<10, len(data))])...)
	}
	skip := binary.LittleEndian.AppendUint32(nil, 0x184D2A53)
	skip = binary.LittleEndian.AppendUint32(skip, 5)
	skip = append(skip, "hello"...)
	cases := map[string][]byte{
		"single":   encode(data),
		"multi":    multi,
		"seekable": seekableBytes(t, data, 64<<10),
		"skippable": append(append(bytes.Clone(skip), encode(data[:500<<10])...),
			append(skip, encode(data[500<<10:], zstd.WithEncoderCRC(false))...)...),
	}
	for name, z := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := open(t, z, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, _ := f.Stat()
			if info, ok := fi.Sys().(*vfs.Origin).Header.(*zstdadapter.Info); !ok || info.Seekable != (name == "seekable") {
				t.Errorf("Sys() = %#v", fi.Sys())
			}
			if f.Size() != int64(len(data)) {
				t.Fatalf("Size() = %d, want %d", f.Size(), len(data))
			}
			r := rand.New(rand.NewPCG(3, 4))
			buf := make([]byte, 5000)
			for range 100 {
				off := r.Int64N(int64(len(data)))
				n, err := f.ReadAt(buf, off)
				if err != nil && err != io.EOF || !bytes.Equal(buf[:n], data[off:off+int64(n)]) {
					t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
				}
			}
			got, err := io.ReadAll(f)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("ReadAll: %d bytes, %v", len(got), err)
			}
		})
	}
}

func TestDetectSkippableFirst(t *testing.T) {
	skip := binary.LittleEndian.AppendUint32(nil, 0x184D2A5F)
	skip = binary.LittleEndian.AppendUint32(skip, 3)
	z := append(append(skip, "abc"...), encode([]byte("detected"))...)
	prefix := fstest.MapFiles(t, map[string][]byte{"x": z})
	f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	reg := vfs.DefaultRegistry
	u, err := reg.Detect(context.Background(), driver.BytesBlob(z, nil))
	if err != nil || u.Scheme != "zstd" {
		t.Fatalf("Detect = %v, %v", u, err)
	}
}

func TestHostile(t *testing.T) {
	data := corpus(300 << 10)
	good := encode(data)
	n := len(good)
	flip := func(i int, x byte) []byte { b := bytes.Clone(good); b[i] ^= x; return b }
	// A frame asking for a 2 GiB window.
	huge := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0}
	huge[5] = (31 - 10) << 3
	huge = append(huge, 1, 0, 0) // last raw block of 0 bytes
	lying := seekableBytes(t, data, 64<<10)
	lying[len(lying)-9-8] ^= 1 // an entry's decompressed size
	lying2 := seekableBytes(t, data, 64<<10)
	lying2[len(lying2)-9-12] ^= 1 // an entry's compressed size
	cases := []struct {
		name string
		z    []byte
		want error
	}{
		{"checksum", flip(n-1, 1), driver.ErrCorrupt},
		{"reserved bit", flip(4, 0x08), driver.ErrCorrupt},
		{"trailing garbage", append(bytes.Clone(good), "junk"...), driver.ErrCorrupt},
		{"huge window", huge, driver.ErrLimit},
		{"lying seek table size", lying, driver.ErrCorrupt},
		{"lying seek table offset", lying2, driver.ErrCorrupt},
		{"corrupt block", flip(n/2, 0xff), driver.ErrCorrupt},
		{"empty", nil, driver.ErrCorrupt},
	}
	for i := 0; i < n; i += max(1, n/200) {
		cases = append(cases, struct {
			name string
			z    []byte
			want error
		}{fmt.Sprintf("truncated at %d", i), good[:i], driver.ErrCorrupt})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, tc.z, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("read %d bytes, err %v, want %v", len(got), err, tc.want)
			}
			// io.Copy streams, without asking for the size.
			f, err := open(t, tc.z, nil)
			var n int64
			if err == nil {
				n, err = io.Copy(io.Discard, f)
				f.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("io.Copy: %d bytes, err %v, want %v", n, err, tc.want)
			}
		})
	}
}

// zeros returns n bytes of zeros, zstd-compressed as one frame without a
// declared size.
func zeros(n int) []byte {
	e, _ := zstd.NewWriter(nil)
	var buf bytes.Buffer
	e.Reset(&buf)
	zero := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(zero))
		e.Write(zero[:k])
		n -= k
	}
	e.Close()
	return buf.Bytes()
}

// TestRatioFloor: zeros compress far beyond MaxRatio, yet read by default
// up to Limits.RatioFloor; past it they stop with an error naming both
// fields, and no byte past the bound reaches the reader.
func TestRatioFloor(t *testing.T) {
	z := zeros(16 << 20)
	if len(z)*vfs.DefaultMaxRatio > 16<<20 {
		t.Fatalf("%d compressed bytes: not beyond the default ratio", len(z))
	}
	got, err := readAll(t, z, nil)
	if err != nil || len(got) != 16<<20 {
		t.Fatalf("ReadAll = %d bytes, %v; want %d bytes", len(got), err, 16<<20)
	}
	o := &vfs.Options{Limits: vfs.Limits{RatioFloor: 4 << 20}}
	bound := o.EffectiveLimits().MaxOutputSlack(int64(len(z)))
	got, err = readAll(t, z, o)
	if !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), "Limits.RatioFloor") || int64(len(got)) > bound {
		t.Fatalf("ReadAll = %d bytes, %v; want ErrLimit naming Limits.RatioFloor within %d bytes", len(got), err, bound)
	}
	f, err := open(t, z, o)
	var n int64
	if err == nil {
		n, err = io.Copy(io.Discard, f)
		f.Close()
	}
	if !errors.Is(err, driver.ErrLimit) || n > bound {
		t.Fatalf("io.Copy = %d, %v; want ErrLimit within %d bytes", n, err, bound)
	}
}

// rleFrame returns a zstd frame of n zeros (n a multiple of 128 KiB) made
// of RLE blocks, four bytes a block, whose header declares n.
func rleFrame(n int64) []byte {
	const block = 128 << 10
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0, 10 << 3} // 8-byte size, 1 MiB window
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	for i := int64(0); i < n/block; i++ {
		h := uint32(block<<3 | 1<<1) // RLE
		if i == n/block-1 {
			h |= 1 // last
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// TestDeclaredBomb: a valid 10 GiB frame of 320 KiB is refused at open,
// before a byte is decoded; the same frame of 32 MiB reads.
func TestDeclaredBomb(t *testing.T) {
	if got := oracle(t, rleFrame(1<<20)); !bytes.Equal(got, make([]byte, 1<<20)) {
		t.Fatalf("rleFrame decodes to %d bytes, want 1 MiB of zeros", len(got))
	}
	_, err := open(t, rleFrame(10<<30), nil)
	if !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), "Limits.RatioFloor") {
		t.Fatalf("open = %v, want ErrLimit naming Limits.RatioFloor", err)
	}
	got, err := readAll(t, rleFrame(32<<20), nil)
	if err != nil || len(got) != 32<<20 {
		t.Fatalf("ReadAll = %d bytes, %v; want %d", len(got), err, 32<<20)
	}
}

func TestConformanceTarZst(t *testing.T) {
	files := map[string][]byte{
		"a.txt":     []byte("alpha"),
		"dir/b.txt": bytes.Repeat([]byte("bravo "), 50000),
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range []string{"a.txt", "dir/b.txt"} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		tw.Write(files[name])
	}
	tw.Close()
	prefix := fstest.MapFiles(t, map[string][]byte{"x.tar.zst": seekableBytes(t, buf.Bytes(), 32<<10)})
	fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/x.tar.zst|zstd:|pipefs.tar:", Files: files})
}

// TestLazySize opens a frame without a content size: opening decodes
// nothing, and a streamed read, then Size, agree with the data.
func TestLazySize(t *testing.T) {
	data := words(1 << 20)
	e, _ := zstd.NewWriter(nil)
	var buf bytes.Buffer
	e.Reset(&buf)
	e.Write(data)
	e.Close()
	f, err := open(t, buf.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if _, err := io.Copy(&out, f); err != nil || !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("io.Copy: %d bytes, %v", out.Len(), err)
	}
	if f.Size() != int64(len(data)) {
		t.Fatalf("Size() = %d, want %d", f.Size(), len(data))
	}
	g, err := open(t, buf.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	p := make([]byte, 10)
	if n, err := g.ReadAt(p, 1000); err != nil || !bytes.Equal(p[:n], data[1000:1010]) {
		t.Fatalf("ReadAt before any pass: %q, %v", p[:n], err)
	}
}

// TestMaxWindow refuses a frame whose window is over Limits.MaxWindow.
func TestMaxWindow(t *testing.T) {
	e, _ := zstd.NewWriter(nil, zstd.WithWindowSize(4<<20))
	z := e.EncodeAll(words(8<<20), nil)
	_, err := readAll(t, z, &vfs.Options{Limits: vfs.Limits{MaxWindow: 1 << 20}})
	if !errors.Is(err, driver.ErrLimit) {
		t.Fatalf("read = %v, want ErrLimit", err)
	}
	if _, err := readAll(t, z, nil); err != nil {
		t.Fatalf("read with the default limit: %v", err)
	}
}

// words returns n bytes of text that compresses about 3:1.
func words(n int) []byte {
	r := rand.New(rand.NewPCG(5, 6))
	var b bytes.Buffer
	for b.Len() < n {
		fmt.Fprintf(&b, "%x ", r.IntN(1<<16))
	}
	return b.Bytes()[:n]
}

// TestStreamOffsets streams from several offsets, through Read and
// through WriteTo, with and without content sizes.
func TestStreamOffsets(t *testing.T) {
	data := words(3 << 20)
	sized := seekableBytes(t, data, 1<<20)
	e, _ := zstd.NewWriter(nil)
	var unsized bytes.Buffer
	e.Reset(&unsized)
	e.Write(data)
	e.Close()
	for name, z := range map[string][]byte{"seekable": sized, "no content size": unsized.Bytes()} {
		for _, off := range []int64{0, 5, 1<<20 + 3, int64(len(data)) - 1, int64(len(data)), int64(len(data)) + 7} {
			for _, how := range []string{"Read", "WriteTo"} {
				f, err := open(t, z, nil)
				if err != nil {
					t.Fatal(err)
				}
				var s driver.Streamer
				if !f.As(&s) {
					t.Fatal("File.As found no driver.Streamer")
				}
				rc, err := s.Stream(context.Background(), off)
				if err != nil {
					t.Fatal(err)
				}
				var got []byte
				if how == "Read" {
					got, err = io.ReadAll(rc)
				} else {
					var buf bytes.Buffer
					_, err = io.Copy(&buf, rc)
					got = buf.Bytes()
				}
				rc.Close()
				f.Close()
				want := data[min(off, int64(len(data))):]
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: Stream(%d) by %s: %d bytes, %v; want %d", name, off, how, len(got), err, len(want))
				}
			}
		}
	}
}

// TestNoRatioLimit reads with Limits.MaxRatio negative (no limit): the
// ratio bound saturates instead of overflowing into a refusal.
func TestNoRatioLimit(t *testing.T) {
	data := corpus(300 << 10)
	for name, z := range map[string][]byte{"sized": encode(data), "seekable": seekableBytes(t, data, 64<<10)} {
		got, err := readAll(t, z, &vfs.Options{Limits: vfs.Limits{MaxRatio: -1}})
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: read %d bytes, err %v; want %d bytes", name, len(got), err, len(data))
		}
	}
}

// TestHostileSeekTable opens seekable files whose seek table lies about
// the layout in each way it can.
func TestHostileSeekTable(t *testing.T) {
	data := corpus(300 << 10)
	good := seekableBytes(t, data, 64<<10)
	n := len(good)
	count := int(binary.LittleEndian.Uint32(good[n-9:]))
	const esize = 12 // seekable.NewWriter writes checksums
	if good[n-5]&0x80 == 0 || count != 5 {
		t.Fatalf("seek table of %d frames, descriptor %#x: not what the cases assume", count, good[n-5])
	}
	start := n - 9 - count*esize - 8 // the seek table's skippable frame
	edit := func(f func(b []byte)) []byte { b := bytes.Clone(good); f(b); return b }
	put := func(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	cases := []struct {
		name string
		z    []byte
		want error
	}{
		{"reserved descriptor bit", edit(func(b []byte) { b[n-5] |= 0x04 }), driver.ErrCorrupt},
		{"more frames than MaxEntries", edit(func(b []byte) { put(b, n-9, 1<<30) }), driver.ErrLimit},
		{"table larger than the file", edit(func(b []byte) { put(b, n-9, 1<<16) }), driver.ErrCorrupt},
		{"one frame less", edit(func(b []byte) { put(b, n-9, uint32(count-1)) }), driver.ErrCorrupt},
		{"no checksums", edit(func(b []byte) { b[n-5] &^= 0x80 }), driver.ErrCorrupt},
		{"skippable magic", edit(func(b []byte) { b[start] ^= 1 }), driver.ErrCorrupt},
		{"skippable frame size", edit(func(b []byte) { b[start+4] ^= 1 }), driver.ErrCorrupt},
		{"tiny frame", edit(func(b []byte) { put(b, start+8, 5) }), driver.ErrCorrupt},
		{"frame past the table", edit(func(b []byte) { put(b, start+8, 1<<32-1) }), driver.ErrCorrupt},
		{"empty entry first", edit(func(b []byte) { put(b, start+8, 0); put(b, start+12, 0) }), driver.ErrCorrupt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, tc.z, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("read %d bytes, err %v, want %v", len(got), err, tc.want)
			}
		})
	}
	// The unmodified file reads back, as a seekable file.
	f, err := open(t, good, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if info, ok := fi.Sys().(*vfs.Origin).Header.(*zstdadapter.Info); !ok || !info.Seekable || info.Frames != count {
		t.Errorf("Sys() = %#v, want a seekable Info of %d frames", fi.Sys().(*vfs.Origin).Header, count)
	}
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, data) {
		t.Errorf("read %d bytes, err %v, want %d bytes", len(got), err, len(data))
	}
}
