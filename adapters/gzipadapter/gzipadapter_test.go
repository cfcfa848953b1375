package gzipadapter_test

import (
	"archive/tar"
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/taradapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// oracle decodes a multi-member gzip stream with the standard library.
func oracle(t testing.TB, gz []byte) []byte {
	t.Helper()
	r, err := stdgzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// openGz writes gz to the memory root and opens name|gzip:.
func openGz(t testing.TB, name string, gz []byte, o *vfs.Options) (*vfs.File, error) {
	t.Helper()
	prefix := fstest.MapFiles(t, map[string][]byte{name: gz})
	return vfs.Open(context.Background(), "memory:/"+prefix+"/"+name+"|gzip:", o)
}

func readAll(t testing.TB, gz []byte, o *vfs.Options) ([]byte, error) {
	t.Helper()
	f, err := openGz(t, "x.gz", gz, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func TestFixtures(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.gz")
	if len(names) < 5 {
		t.Fatalf("fixtures missing: %v", names)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			gz, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			want := oracle(t, gz)
			got, err := readAll(t, gz, nil)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes, err %v; want %d bytes", len(got), err, len(want))
			}
		})
	}
}

func TestSeqContents(t *testing.T) {
	gz, _ := os.ReadFile("testdata/seq.txt.gz")
	var want strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	got, err := readAll(t, gz, nil)
	if err != nil || string(got) != want.String() {
		t.Fatalf("seq.txt.gz: %d bytes, %v", len(got), err)
	}
}

func TestNameAndHeader(t *testing.T) {
	cases := []struct {
		file, name string
		comment    string
	}{
		{file: "hello.txt.gz", name: "hello.txt"},
		{file: "nameless.gz", name: "x"},
		{file: "comment.gz", name: "hello.txt", comment: "a comment"},
	}
	for _, tc := range cases {
		gz, _ := os.ReadFile("testdata/" + tc.file)
		f, err := openGz(t, "x.gz", gz, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b driver.Blob
		if !f.As(&b) {
			t.Fatal("File.As found no driver.Blob")
		}
		info := b.Stat()
		if info.Name() != tc.name {
			t.Errorf("%s: Name() = %q, want %q", tc.file, info.Name(), tc.name)
		}
		h, ok := info.Sys().(*stdgzip.Header)
		if !ok || h.Comment != tc.comment {
			t.Errorf("%s: Sys() = %#v, want a Header with comment %q", tc.file, info.Sys(), tc.comment)
		}
		if tc.file == "hello.txt.gz" && info.ModTime().UTC().Format("2006-01-02T15:04:05") != "2020-01-02T03:04:05" {
			t.Errorf("%s: ModTime() = %v", tc.file, info.ModTime())
		}
		f.Close()
	}
}

// header builds a gzip member header by hand, with every optional field.
func header(flags byte, extra []byte, name, comment string) []byte {
	h := []byte{0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 3}
	if flags&4 != 0 {
		h = binary.LittleEndian.AppendUint16(h, uint16(len(extra)))
		h = append(h, extra...)
	}
	if flags&8 != 0 {
		h = append(append(h, name...), 0)
	}
	if flags&16 != 0 {
		h = append(append(h, comment...), 0)
	}
	if flags&2 != 0 {
		h = binary.LittleEndian.AppendUint16(h, uint16(crc32.ChecksumIEEE(h)))
	}
	return h
}

// member builds a member with the given header around data.
func member(hdr, data []byte) []byte {
	var buf bytes.Buffer
	w, _ := kgzip.NewWriterLevel(&buf, 6)
	w.Write(data)
	w.Close()
	raw := buf.Bytes()[10 : buf.Len()-8] // strip the writer's header and trailer
	out := append(bytes.Clone(hdr), raw...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(out, uint32(len(data)))
}

func TestAllHeaderFields(t *testing.T) {
	data := []byte(strings.Repeat("all the header fields\n", 100))
	gz := member(header(2|4|8|16, []byte("XYZ\x02\x00ab"), "n.txt", "c"), data)
	gz = append(gz, member(header(0, nil, "", ""), data)...)
	got, err := readAll(t, gz, nil)
	if err != nil || !bytes.Equal(got, append(bytes.Clone(data), data...)) {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	f, err := openGz(t, "x.gz", gz, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b driver.Blob
	if !f.As(&b) {
		t.Fatal("File.As found no driver.Blob")
	}
	// The first member's header, as compress/gzip would read it.
	want, err := stdgzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := b.Stat().Sys().(*stdgzip.Header); !ok || h.Name != want.Name || h.Comment != want.Comment ||
		!bytes.Equal(h.Extra, want.Extra) || h.OS != want.OS || !h.ModTime.Equal(want.ModTime) || h.Name != "n.txt" || h.Comment != "c" {
		t.Errorf("Sys() = %#v, want %#v", b.Stat().Sys(), want.Header)
	}
}

// TestSpacing opens one stream with two checkpoint spacings: each open's
// index has its own spacing.
func TestSpacing(t *testing.T) {
	var text bytes.Buffer // 4 MB that does not compress to nothing
	for i := 0; text.Len() < 4<<20; i++ {
		fmt.Fprintf(&text, "%d %x\n", i, i*i*2654435761)
	}
	prefix := fstest.MapFiles(t, map[string][]byte{"s.gz": gzipBytes(text.Bytes())})
	points := func(spacing int64) int {
		o := &vfs.Options{Schemes: map[string]any{"gzip": &gzipadapter.Options{Spacing: spacing}}}
		f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/s.gz|gzip:", o)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if n, err := io.Copy(io.Discard, f); err != nil || n != int64(text.Len()) {
			t.Fatalf("spacing %d: io.Copy = %d, %v", spacing, n, err)
		}
		n, _ := gzipadapter.IndexStats(f)
		return n
	}
	// About one checkpoint a MiB, then one every 256 KiB, then the
	// default again (1 MiB), from the cache.
	wide, dense, again := points(0), points(256<<10), points(0)
	if wide < 4 || wide > 6 || dense < 4*wide-4 || again != wide {
		t.Errorf("checkpoints: %d at 1 MiB, %d at 256 KiB, %d at 1 MiB again", wide, dense, again)
	}
	// A value of the wrong type is refused at open.
	o := &vfs.Options{Schemes: map[string]any{"gzip": gzipadapter.Options{Spacing: 1 << 20}}}
	if _, err := vfs.Open(context.Background(), "memory:/"+prefix+"/s.gz|gzip:", o); err == nil {
		t.Error("opened with a gzipadapter.Options value, want an error (the type is *Options)")
	}
}

// TestHostile checks that bad input gives a clear error matching the
// right sentinel.
func TestHostile(t *testing.T) {
	data := []byte(strings.Repeat("hostile input ", 1000))
	good := member(header(2|8, nil, "a", ""), data)
	flip := func(i int, x byte) []byte { b := bytes.Clone(good); b[i] ^= x; return b }
	n := len(good)
	cases := []struct {
		name string
		gz   []byte
		want error
	}{
		{"reserved flag", flip(3, 0x20), driver.ErrCorrupt},
		{"method", flip(2, 1), driver.ErrCorrupt},
		{"header crc", flip(10, 1), driver.ErrCorrupt},
		{"data crc", flip(n-8, 1), driver.ErrCorrupt},
		{"isize", flip(n-4, 1), driver.ErrCorrupt},
		{"trailing garbage", append(bytes.Clone(good), "junk"...), driver.ErrCorrupt},
		{"trailing zeros then junk", append(bytes.Clone(good), 0, 0, 0, 0, 'x'), driver.ErrCorrupt},
		{"trailing magic", append(bytes.Clone(good), 0x1f, 0x8b), driver.ErrCorrupt},
		{"corrupt deflate", flip(20, 0xff), driver.ErrCorrupt},
	}
	// Truncation at every offset.
	for i := range n {
		cases = append(cases, struct {
			name string
			gz   []byte
			want error
		}{fmt.Sprintf("truncated at %d", i), good[:i], driver.ErrCorrupt})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, tc.gz, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("read %d bytes, err %v, want %v", len(got), err, tc.want)
			}
		})
	}
	// Zero bytes after the last member are padding, as gzip -t, GNU tar
	// and bsdtar take them.
	for _, n := range []int{1, 4, 100 << 10} {
		got, err := readAll(t, append(bytes.Clone(good), make([]byte, n)...), nil)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d trailing zeros: read %d bytes, %v", n, len(got), err)
		}
	}
}

// bomb returns about n bytes of zeros gzipped as many identical members.
func bomb(t testing.TB, n int64) []byte {
	var buf bytes.Buffer
	w, _ := kgzip.NewWriterLevel(&buf, 9)
	w.Write(make([]byte, 64<<20))
	w.Close()
	m := buf.Bytes()
	return bytes.Repeat(m, int(n/(64<<20)))
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := kgzip.NewWriterLevel(&buf, 9)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// TestBombInBomb opens 10 GiB of zeros gzipped twice (a few hundred KB):
// the ratio limit against the outer compressed size stops the inner pass
// early.
func TestBombInBomb(t *testing.T) {
	inner := bomb(t, 10<<30)
	outer := gzipBytes(inner)
	t.Logf("10 GiB of zeros: %d bytes gzipped, %d twice", len(inner), len(outer))
	prefix := fstest.MapFiles(t, map[string][]byte{"b.gz.gz": outer})
	// Opening decodes nothing; the first read (here the size, which the
	// inner open needs from the outer stream) hits the limit.
	f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/b.gz.gz|gzip:|gzip:", nil)
	if err == nil {
		_, err = io.Copy(io.Discard, f)
		f.Close()
	}
	if !errors.Is(err, driver.ErrLimit) {
		t.Fatalf("open and read = %v, want ErrLimit", err)
	}
	// The inner stream alone is within the DEFLATE ratio; MaxFileSize stops it.
	_, err = readAll(t, inner, &vfs.Options{Limits: vfs.Limits{MaxFileSize: 1 << 30}})
	if !errors.Is(err, driver.ErrLimit) {
		t.Fatalf("read = %v, want ErrLimit", err)
	}
}

func TestDetect(t *testing.T) {
	gz, _ := os.ReadFile("testdata/hello.txt.gz")
	prefix := fstest.MapFiles(t, map[string][]byte{"a.bin": gz})
	f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/a.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, _ := io.ReadAll(f); string(b) != "hello, gzip\n" && !strings.HasSuffix(f.URL(), "|gzip:") {
		t.Logf("detection left the file alone: %q", f.URL())
	}
}

// TestConformanceTarGz runs the conformance kit on a .tar.gz.
func TestConformanceTarGz(t *testing.T) {
	files := map[string][]byte{
		"a.txt":         []byte("alpha"),
		"dir/b.txt":     bytes.Repeat([]byte("bravo "), 50000),
		"dir/sub/c.bin": bytes.Repeat([]byte{1, 2, 3}, 7000),
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range []string{"a.txt", "dir/b.txt", "dir/sub/c.bin"} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		tw.Write(files[name])
	}
	tw.Close()
	prefix := fstest.MapFiles(t, map[string][]byte{"x.tar.gz": gzipBytes(buf.Bytes())})
	fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/x.tar.gz|gzip:|pipefs.tar:", Files: files})
}

// copyAll opens gz and copies it with io.Copy, which streams it through
// driver.Streamer without asking for its size.
func copyAll(t testing.TB, gz []byte, o *vfs.Options) ([]byte, error) {
	t.Helper()
	f, err := openGz(t, "x.gz", gz, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, f)
	return buf.Bytes(), err
}

// TestStreamHostile checks that streaming bad input ends in an error,
// never in a clean io.EOF after short data.
func TestStreamHostile(t *testing.T) {
	data := []byte(strings.Repeat("streamed hostile input ", 3000))
	good := member(header(0, nil, "", ""), data)
	two := append(bytes.Clone(good), good...)
	flip := func(i int, x byte) []byte { b := bytes.Clone(two); b[i] ^= x; return b }
	n := len(two)
	cases := map[string][]byte{
		"data crc":         flip(n-8, 1),
		"isize":            flip(n-4, 1),
		"first member crc": flip(len(good)-8, 1),
		"trailing garbage": append(bytes.Clone(two), "junk"...),
		"corrupt deflate":  flip(len(good)+20, 0xff),
	}
	for i := len(good) + 1; i < n; i += 37 {
		cases[fmt.Sprintf("truncated at %d", i)] = two[:i]
	}
	for name, gz := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := copyAll(t, gz, nil)
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("io.Copy: %d bytes, err %v, want ErrCorrupt", len(got), err)
			}
		})
	}
	got, err := copyAll(t, two, nil)
	if err != nil || !bytes.Equal(got, append(bytes.Clone(data), data...)) {
		t.Fatalf("io.Copy of the good stream: %d bytes, %v", len(got), err)
	}
}

// TestLazySize checks that opening decodes nothing, that a streamed read
// learns the size, and that a bad stream's Size does not cut a reader
// short.
func TestLazySize(t *testing.T) {
	var text bytes.Buffer // 4 MB that does not compress to nothing: several checkpoints
	for i := 0; text.Len() < 4<<20; i++ {
		fmt.Fprintf(&text, "%d %x\n", i, i*i*2654435761)
	}
	data := text.Bytes()
	gz := gzipBytes(data)
	prefix := fstest.MapFiles(t, map[string][]byte{"lazy.gz": gz})
	f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/lazy.gz|gzip:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, _ := gzipadapter.IndexStats(f); n != 1 {
		t.Errorf("after open, the index has %d points, want 1 (nothing decoded)", n)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, f); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("io.Copy: %d bytes, %v", buf.Len(), err)
	}
	if n, _ := gzipadapter.IndexStats(f); n < 4 {
		t.Errorf("after io.Copy, the index has %d points, want at least 4", n)
	}
	if got := f.Size(); got != int64(len(data)) {
		t.Errorf("Size() = %d, want %d", got, len(data))
	}

	// A bad CRC: Size is an upper bound, and reading fails.
	bad := bytes.Clone(gz)
	bad[len(bad)-8] ^= 1
	g, err := openGz(t, "bad.gz", bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := g.Size(); got <= int64(len(data)) {
		t.Errorf("Size() of a corrupt stream = %d, want an upper bound past %d", got, len(data))
	}
	if _, err := io.ReadAll(g); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("ReadAll of a corrupt stream: %v, want ErrCorrupt", err)
	}
}

// TestNoRatioLimit reads with MaxRatio -1, "no limit": the bound plus its
// slack must saturate, not overflow into a refusal of every stream.
func TestNoRatioLimit(t *testing.T) {
	var buf bytes.Buffer
	zw := stdgzip.NewWriter(&buf)
	zw.Write(bytes.Repeat([]byte("pipefs "), 100000))
	zw.Close()
	got, err := readAll(t, buf.Bytes(), &vfs.Options{Limits: vfs.Limits{MaxRatio: -1}})
	if err != nil || len(got) != 700000 {
		t.Fatalf("read %d bytes, %v; want 700000", len(got), err)
	}
}
