package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// layout is an independent walk of a well-formed (non-zip64) archive, to
// find the structures the hostile tests damage.
type layout struct {
	eocd    int
	records []int // central directory record offsets
	locals  []int // local header offsets
	data    []int // data offsets
}

func walk(t testing.TB, b []byte) layout {
	t.Helper()
	le := binary.LittleEndian
	var l layout
	l.eocd = bytes.LastIndex(b, []byte("PK\x05\x06"))
	if l.eocd < 0 {
		t.Fatal("no end record")
	}
	n := int(le.Uint16(b[l.eocd+10:]))
	size, off := int(le.Uint32(b[l.eocd+12:])), int(le.Uint32(b[l.eocd+16:]))
	base := l.eocd - size - off
	if bytes.Contains(b, []byte("PK\x06\x06")) {
		i := bytes.LastIndex(b, []byte("PK\x06\x06"))
		n = int(le.Uint64(b[i+32:]))
		size, off = int(le.Uint64(b[i+40:])), int(le.Uint64(b[i+48:]))
		base = i - size - off
	}
	if base < 0 || !bytes.Equal(b[off:off+4], []byte("PK\x01\x02")) {
		// a prefix with unfixed offsets
		off += max(base, 0)
	} else {
		base = 0
	}
	p := off
	for range n {
		l.records = append(l.records, p)
		loc := base + int(le.Uint32(b[p+42:]))
		if le.Uint32(b[p+42:]) == 0xffffffff {
			loc = -1
		}
		if loc >= 0 && loc+30 <= len(b) {
			l.locals = append(l.locals, loc)
			l.data = append(l.data, loc+30+int(le.Uint16(b[loc+26:]))+int(le.Uint16(b[loc+28:])))
		}
		p += 46 + int(le.Uint16(b[p+28:])) + int(le.Uint16(b[p+30:])) + int(le.Uint16(b[p+32:]))
	}
	return l
}

// checkErr fails unless err is nil or matches one of the sentinels.
func checkErr(t testing.TB, what string, err error, sentinels ...error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Errorf("%s: error %v matches none of %v", what, err, sentinels)
}

// openAndRead opens b and reads everything, returning the first error.
func openAndRead(b driver.Blob, o *vfs.Options) error {
	a, err := Open(context.Background(), b, o)
	if err != nil {
		return err
	}
	_, err = readAll(a, 1<<22)
	return err
}

// shortBlob claims size bytes but holds only the first len(b).
type shortBlob struct {
	b    []byte
	size int64
}

func (s *shortBlob) Stat() fs.FileInfo { return &driver.FileInfo{FSize: s.size, FMode: 0o444} }
func (s *shortBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fs.ErrInvalid
	}
	if off >= int64(len(s.b)) {
		return 0, io.EOF
	}
	n := copy(p, s.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func fixtureNames(t testing.TB) []string {
	names, err := filepath.Glob(filepath.Join("testdata", "*.zip"))
	if err != nil || len(names) == 0 {
		t.Fatal("no fixtures", err)
	}
	return names
}

// TestTruncated cuts every fixture at every offset: the archive must fail
// to open, or open (a nested archive's end record may be found) and read
// with errors that say the data is corrupt. Then every structural offset
// is cut while the blob still claims its full size, as a remote object
// shortened under the reader would.
func TestTruncated(t *testing.T) {
	for _, name := range fixtureNames(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for k := range len(b) {
			err := openAndRead(driver.BytesBlob(b[:k], nil), nil)
			if err == nil {
				continue
			}
			checkErr(t, fmt.Sprintf("%s[:%d]", name, k), err, driver.ErrCorrupt)
		}
		l := walk(t, b)
		offs := []int{l.eocd, l.eocd + 4, l.eocd + 21}
		for _, group := range [][]int{l.records, l.locals, l.data} {
			for _, o := range group {
				offs = append(offs, o, o+1, o+29, o+45)
			}
		}
		for _, k := range offs {
			if k >= len(b) {
				continue
			}
			err := openAndRead(&shortBlob{b[:k], int64(len(b))}, nil)
			if err == nil && k < l.eocd {
				// Fine only if the cut left every member whole.
				if len(l.data) > 0 && k < l.data[len(l.data)-1] {
					t.Errorf("%s: cut at %d under a full size read without error", name, k)
				}
			}
			checkErr(t, fmt.Sprintf("%s short at %d", name, k), err, driver.ErrCorrupt)
		}
	}
}

type entrySpec struct {
	name   string
	body   []byte
	method uint16
}

func makeZip(t testing.TB, es ...entrySpec) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range es {
		f, err := w.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			t.Fatal(err)
		}
		f.Write(e.body)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var text = []byte(strings.Repeat("the quick brown fox jumps over the lazy dog\n", 200))

func TestHostile(t *testing.T) {
	le := binary.LittleEndian
	two := func() []byte {
		return makeZip(t, entrySpec{"a.txt", text, zip.Deflate}, entrySpec{"b.txt", text, zip.Store})
	}
	// patch returns a copy of b changed by f.
	patch := func(b []byte, f func(b []byte, l layout)) []byte {
		b = bytes.Clone(b)
		f(b, walk(t, b))
		return b
	}
	tests := []struct {
		name string
		zip  []byte
		opts *vfs.Options
		want error // at Open or when reading
		msg  string
	}{
		{
			name: "bad CRC of a deflate member",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.records[0]+16:], 0x12345678) }),
			want: driver.ErrCorrupt, msg: "CRC",
		},
		{
			name: "deflate declares one byte more",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.records[0]+24:], uint32(len(text)+1)) }),
			want: driver.ErrCorrupt, msg: "ends after",
		},
		{
			name: "deflate declares one byte less",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.records[0]+24:], uint32(len(text)-1)) }),
			want: driver.ErrCorrupt, msg: "declared",
		},
		{
			name: "stored declares more than it has",
			zip: patch(two(), func(b []byte, l layout) {
				le.PutUint32(b[l.records[1]+20:], uint32(len(text)+100))
				le.PutUint32(b[l.records[1]+24:], uint32(len(text)+100))
			}),
			want: driver.ErrCorrupt, msg: "overlaps",
		},
		{
			name: "stored sizes disagree",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.records[1]+24:], uint32(len(text)-100)) }),
			want: driver.ErrCorrupt, msg: "stored member",
		},
		{
			name: "deflate compressed size too large",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.records[0]+20:], 1<<20) }),
			want: driver.ErrCorrupt,
		},
		{
			name: "central directory past the end",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.eocd+16:], 1<<30) }),
			want: driver.ErrCorrupt,
		},
		{
			name: "central directory size past the start",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.eocd+12:], 1<<30) }),
			want: driver.ErrCorrupt,
		},
		{
			name: "local header offset past the end",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.records[1]+42:], 1<<30) }),
			want: driver.ErrCorrupt, msg: "past the end",
		},
		{
			name: "local header offset to a non-header",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.records[1]+42:], uint32(l.records[0])) }),
			want: driver.ErrCorrupt,
		},
		{
			name: "local header signature damaged",
			zip:  patch(two(), func(b []byte, l layout) { b[l.locals[1]] = 'X' }),
			want: driver.ErrCorrupt, msg: "local file header",
		},
		{
			name: "local extra field pushes data into the next entry",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint16(b[l.locals[0]+28:], 60000) }),
			want: driver.ErrCorrupt, msg: "next entry",
		},
		{
			name: "deflate data damaged",
			zip: patch(two(), func(b []byte, l layout) {
				for i := l.data[0]; i < l.data[0]+40; i++ {
					b[i] = 0xff
				}
			}),
			want: driver.ErrCorrupt,
		},
		{
			name: "count says more records than there are",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint16(b[l.eocd+10:], 3); le.PutUint16(b[l.eocd+8:], 3) }),
			want: driver.ErrCorrupt,
		},
		{
			name: "unsupported method",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint16(b[l.records[0]+10:], 98) }),
			want: errors.ErrUnsupported, msg: "method 98 (PPMd",
		},
		{
			name: "unknown method",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint16(b[l.records[0]+10:], 77) }),
			want: errors.ErrUnsupported, msg: "method 77 is not decoded",
		},
		{
			name: "deflate data as bzip2",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint16(b[l.records[0]+10:], 12) }),
			want: driver.ErrCorrupt, msg: "bzip2",
		},
		{
			name: "encrypted",
			zip:  patch(two(), func(b []byte, l layout) { b[l.records[0]+8] |= 1 }),
			want: errors.ErrUnsupported, msg: "encrypted",
		},
		{
			name: "too many entries",
			zip:  makeZip(t, entrySpec{"1", nil, 0}, entrySpec{"2", nil, 0}, entrySpec{"3", nil, 0}),
			opts: &vfs.Options{Limits: vfs.Limits{MaxEntries: 2}},
			want: driver.ErrLimit, msg: "MaxEntries",
		},
		{
			name: "too many entries, count lies",
			zip: patch(makeZip(t, entrySpec{"1", nil, 0}, entrySpec{"2", nil, 0}, entrySpec{"3", nil, 0}),
				func(b []byte, l layout) { le.PutUint16(b[l.eocd+10:], 1); le.PutUint16(b[l.eocd+8:], 1) }),
			opts: &vfs.Options{Limits: vfs.Limits{MaxEntries: 2}},
			want: driver.ErrLimit, msg: "MaxEntries",
		},
		{
			name: "name too long",
			zip:  makeZip(t, entrySpec{"dir/" + strings.Repeat("n", 100), nil, 0}),
			opts: &vfs.Options{Limits: vfs.Limits{MaxNameLength: 64}},
			want: driver.ErrLimit, msg: "MaxNameLength",
		},
		{
			name: "file too large",
			zip:  two(),
			opts: &vfs.Options{Limits: vfs.Limits{MaxFileSize: 1000}},
			want: driver.ErrLimit, msg: "MaxFileSize",
		},
		{
			name: "ratio",
			zip:  makeZip(t, entrySpec{"zeros", make([]byte, 1<<20), zip.Deflate}),
			opts: &vfs.Options{Limits: vfs.Limits{MaxRatio: 100}},
			want: driver.ErrLimit, msg: "MaxRatio",
		},
		{
			name: "declared size from nothing",
			zip:  patch(two(), func(b []byte, l layout) { le.PutUint32(b[l.records[0]+24:], 0xfffffff0) }),
			want: driver.ErrLimit, msg: "MaxRatio",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := openAndRead(driver.BytesBlob(tc.zip, nil), tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error = %v, want it to say %q", err, tc.msg)
			}
			if err := openAndStream(driver.BytesBlob(tc.zip, nil), tc.opts); !errors.Is(err, tc.want) {
				t.Errorf("streamed: error = %v, want %v", err, tc.want)
			}
		})
	}
}

// overlapping builds the "better zip bomb" shape: several central
// directory records pointing at one local header and its data.
func overlapping(t testing.TB, copies int) []byte {
	le := binary.LittleEndian
	b := makeZip(t, entrySpec{"k", make([]byte, 1<<16), zip.Deflate})
	l := walk(t, b)
	rec := bytes.Clone(b[l.records[0]:l.eocd])
	var out bytes.Buffer
	out.Write(b[:l.records[0]])
	for i := range copies {
		r := bytes.Clone(rec)
		r[46] = byte('a' + i) // the one-byte name
		out.Write(r)
	}
	end := bytes.Clone(b[l.eocd:])
	le.PutUint16(end[8:], uint16(copies))
	le.PutUint16(end[10:], uint16(copies))
	le.PutUint32(end[12:], uint32(copies*len(rec)))
	out.Write(end)
	return out.Bytes()
}

func TestOverlap(t *testing.T) {
	_, err := Open(context.Background(), driver.BytesBlob(overlapping(t, 5), nil), nil)
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("Open(overlapping) = %v, want ErrCorrupt naming a and b", err)
	}
	// Entry data overlapping the central directory.
	b := makeZip(t, entrySpec{"x", text, zip.Store})
	l := walk(t, b)
	binary.LittleEndian.PutUint32(b[l.records[0]+20:], uint32(len(text)+30))
	binary.LittleEndian.PutUint32(b[l.records[0]+24:], uint32(len(text)+30))
	_, err = Open(context.Background(), driver.BytesBlob(b, nil), nil)
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "central directory") {
		t.Errorf("Open(data over directory) = %v, want ErrCorrupt", err)
	}
}

// TestManyEntries builds an archive of more than 65535 entries (zip64 end
// records) in memory.
func TestManyEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 70000-entry archive")
	}
	const n = 70000
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := range n {
		if _, err := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("d%d/f%d", i%100, i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	blob := driver.BytesBlob(buf.Bytes(), nil)
	a, err := Open(context.Background(), blob, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := a.ReadDir(context.Background(), "d7")
	if err != nil || len(list) != n/100 {
		t.Errorf("ReadDir(d7) = %d entries, %v, want %d", len(list), err, n/100)
	}
	_, err = Open(context.Background(), blob, &vfs.Options{Limits: vfs.Limits{MaxEntries: n - 1}})
	if !errors.Is(err, driver.ErrLimit) {
		t.Errorf("Open with MaxEntries %d = %v, want ErrLimit", n-1, err)
	}
}

// sparseWriter writes runs of zeros as holes.
type sparseWriter struct{ f *os.File }

var zeros = make([]byte, 1<<20)

func (w sparseWriter) Write(p []byte) (int, error) {
	if len(p) <= len(zeros) && bytes.Equal(p, zeros[:len(p)]) {
		_, err := w.f.Seek(int64(len(p)), io.SeekCurrent)
		return len(p), err
	}
	return w.f.Write(p)
}

// TestZip64Large builds a sparse zip64 archive of more than 4 GiB in a
// temporary file, with a stored member that starts past the 4 GiB mark.
func TestZip64Large(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a sparse 5 GiB file")
	}
	name := filepath.Join(t.TempDir(), "big.zip")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := zip.NewWriter(sparseWriter{f})
	h := &zip.FileHeader{Name: "holes.bin", Method: zip.Store}
	h.UncompressedSize64, h.CompressedSize64 = 5<<30, 5<<30
	raw, err := w.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 << 10 {
		if _, err := raw.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	last, err := w.Create("after-4GiB.txt")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(last, "past the 4 GiB mark\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	blob := &fileBlob{f, fi}
	a, err := Open(context.Background(), blob, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.OpenBlob(context.Background(), "after-4GiB.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 100)
	n, err := b.ReadAt(context.Background(), p, 0)
	if string(p[:n]) != "past the 4 GiB mark\n" || err != io.EOF {
		t.Errorf("ReadAt = %q, %v", p[:n], err)
	}
	b, err = a.OpenBlob(context.Background(), "holes.bin")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := b.ReadAt(context.Background(), p, 5<<30-10); n != 10 || err != io.EOF {
		t.Errorf("ReadAt(end of holes.bin) = %d, %v", n, err)
	}
}

// fileBlob is a blob over an *os.File.
type fileBlob struct {
	f  *os.File
	fi fs.FileInfo
}

func (b *fileBlob) Stat() fs.FileInfo { return b.fi }
func (b *fileBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return b.f.ReadAt(p, off)
}
