package browse

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// TestServeStreams checks how a listing shows compressed files: a stream
// that holds a tar is a folder ("gzip|tar"), and opens as the tar's
// listing; a stream of text is a plain file of its stream's kind, served
// as it is, not a folder that cannot open.
func TestServeStreams(t *testing.T) {
	tarball := tarBytes(t, "inside.txt", "inside the tar\n")
	text := []byte(strings.Repeat("plain text, not an archive\n", 40))
	compress := func(w io.WriteCloser, buf *bytes.Buffer, data []byte) []byte {
		t.Helper()
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	gz := func(data []byte) []byte {
		var b bytes.Buffer
		return compress(gzip.NewWriter(&b), &b, data)
	}
	zst := func(data []byte) []byte {
		var b bytes.Buffer
		w, err := zstd.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		return compress(w, &b, data)
	}
	xzOf := func(data []byte) []byte {
		var b bytes.Buffer
		w, err := xz.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		return compress(w, &b, data)
	}
	dir := t.TempDir()
	files := map[string][]byte{
		"a.tar.gz":      gz(tarball),
		"b.tar.zst":     zst(tarball),
		"c.tar.xz":      xzOf(tarball),
		"d.tar.gz.xz":   xzOf(gz(tarball)),
		"notes.txt.gz":  gz(text),
		"notes.txt.zst": zst(text),
	}
	bz := fstest.NeedTool(t, "bzip2")
	cmd := exec.Command(bz, "-c")
	cmd.Stdin = bytes.NewReader(tarball)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	files["e.tar.bz2"] = out
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := vfs.FromPath(dir + string(filepath.Separator))
	if err != nil {
		t.Fatal(err)
	}
	s := serverAt(t, root.String(), nil)
	p := fetchPage(t, s, "/", 200)
	for name, kind := range map[string]string{
		"a.tar.gz": "gzip|tar", "b.tar.zst": "zstd|tar", "c.tar.xz": "xz|tar", "d.tar.gz.xz": "xz|gzip|tar", "e.tar.bz2": "bzip2|tar",
	} {
		e := entryNamed(t, p, name)
		if e.Kind != kind || e.Href != "/"+name+"/" || e.Raw != "/"+name {
			t.Errorf("%s entry %+v, want kind %q and a folder", name, e, kind)
			continue
		}
		inner := fetchPage(t, s, e.Href, 200)
		if got := entryNamed(t, inner, "inside.txt"); got.Size != int64(len("inside the tar\n")) {
			t.Errorf("%s: the tar inside lists inside.txt as %+v", name, got)
		}
	}
	for name, kind := range map[string]string{"notes.txt.gz": "gzip", "notes.txt.zst": "zstd"} {
		e := entryNamed(t, p, name)
		if e.Kind != kind || e.Href != "/"+name || e.Raw != "" {
			t.Errorf("%s entry %+v, want kind %q and a plain file", name, e, kind)
		}
		resp := fetch(t, s, e.Href)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !bytes.Equal(body, files[name]) {
			t.Errorf("GET %s: %s, %d bytes, want the file's %d bytes", e.Href, resp.Status, len(body), len(files[name]))
		}
	}
}

// xzWithDict returns the xz stream of data with the dictionary its block
// header declares set to 2^log bytes (its CRC-32 fixed): a larger
// dictionary than the stream uses, so it still decodes, but one that a
// decoder that trusts the header allocates.
func xzWithDict(t *testing.T, data []byte, log int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.WriterConfig{DictCap: 1 << 20}.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	h := b[12 : 12+(int(b[12])+1)*4] // the first block header
	p := 2
	for _, f := range []byte{0x40, 0x80} { // compressed, uncompressed size
		if h[1]&f != 0 {
			_, n := binary.Uvarint(h[p:])
			p += n
		}
	}
	if h[1]&3 != 0 || h[p] != 0x21 || h[p+1] != 1 {
		t.Fatalf("block header % x: not LZMA2 alone", h)
	}
	h[p+2] = byte(2 * (log - 12)) // 2^(p/2+12) bytes
	binary.LittleEndian.PutUint32(h[len(h)-4:], crc32.ChecksumIEEE(h[:len(h)-4]))
	return b
}

// zstdWithWindow returns a zstd frame of data whose header declares a
// window of 2^log bytes.
func zstdWithWindow(t *testing.T, data []byte, log int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithWindowSize(1<<20), zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if b[4]&0x20 != 0 {
		t.Fatal("a single-segment frame")
	}
	b[5] = byte(log-10) << 3 // the window descriptor
	return b
}

// compressedTars writes a.tar.xz, whose dictionary is 1<<dictLog bytes,
// and b.tar.zst, whose window is 1<<windowLog, into a new directory, and
// returns its pipeline.
func compressedTars(t *testing.T, dictLog, windowLog int) vfs.Pipeline {
	t.Helper()
	tarball := tarBytes(t, "inside.txt", "inside the tar\n")
	dir := t.TempDir()
	files := map[string][]byte{
		"a.tar.xz":  xzWithDict(t, tarball, dictLog),
		"b.tar.zst": zstdWithWindow(t, tarball, windowLog),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := vfs.FromPath(dir + string(filepath.Separator))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestServeSniffLimits: a listing looks inside a compressed stream only as
// far as opening it would go: a stream whose window or dictionary is over
// Limits.MaxWindow, which opening refuses, is a file of its kind, not a
// folder.
func TestServeSniffLimits(t *testing.T) {
	root := compressedTars(t, 22, 22)
	for _, tc := range []struct {
		window int64
		kinds  map[string]string
		folder bool
	}{
		{4 << 20, map[string]string{"a.tar.xz": "xz|tar", "b.tar.zst": "zstd|tar"}, true},
		{1 << 20, map[string]string{"a.tar.xz": "xz", "b.tar.zst": "zstd"}, false},
	} {
		s := serverAt(t, root.String(), &vfs.Options{Limits: vfs.Limits{MaxWindow: tc.window}})
		p := fetchPage(t, s, "/", 200)
		for name, kind := range tc.kinds {
			e := entryNamed(t, p, name)
			if folder := e.Href == "/"+name+"/"; e.Kind != kind || folder != tc.folder {
				t.Errorf("MaxWindow %d: %s entry %+v, want kind %q, a folder: %v", tc.window, name, e, kind, tc.folder)
			}
			if !tc.folder {
				fetchPage(t, s, "/"+name+"/", 500) // opening it fails on the limit
			}
		}
	}
}

// TestServeSniffMemory: a listing decodes the head of a compressed stream
// with what the head needs, not with the window or dictionary its header
// declares (here 1 GiB of xz dictionary, 64 MiB of zstd window).
func TestServeSniffMemory(t *testing.T) {
	root := compressedTars(t, 30, 26)
	s := serverAt(t, root.String(), &vfs.Options{Limits: vfs.Limits{MaxWindow: 2 << 30}})
	for name, want := range map[string]string{"a.tar.xz": "xz|tar", "b.tar.zst": "zstd|tar"} {
		rl, err := s.rootLayer(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		kind, folder := s.sniff(rl.fsys, name)
		s.layers.release(rl)
		runtime.ReadMemStats(&after)
		if kind != want || !folder {
			t.Errorf("sniff(%s) = %q, %v; want %q, a folder", name, kind, folder, want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
			t.Errorf("sniff(%s) allocated %d MiB, want at most 16", name, n>>20)
		}
	}
}
