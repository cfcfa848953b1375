package taradapter

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/vfs"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	_ "github.com/pipefs/pipefs/roots/memroot"
)

// longName is the member name over 100 bytes that testdata/src holds.
var longName = "long/" + strings.Repeat("a", 60) + "/" + strings.Repeat("b", 60) + "/file-with-a-long-name-over-one-hundred-bytes.txt"

// srcFiles reads testdata/src, the tree make.sh archives.
func srcFiles(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := fs.WalkDir(os.DirFS("testdata/src"), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files[name], err = os.ReadFile(filepath.Join("testdata/src", name))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// toolTree is what the tool-made archives of src must read as: src, the
// links make.sh adds (followed), minus what a format cannot hold.
func toolTree(t testing.TB, longLink, long bool) map[string][]byte {
	files := srcFiles(t)
	files["link-hello"] = files["hello.txt"]
	files["hard.txt"] = files["hello.txt"]
	files["dir/up"] = files["hello.txt"]
	if longLink {
		files["long-link"] = files[longName]
	}
	if !long {
		delete(files, longName)
	}
	return files
}

// sparseData is the sparse file of make.sh: 256 KiB, 4 KiB of 'A' at 0,
// 4 KiB of 'B' at 128 KiB, 100 bytes of 'C' at the end.
func sparseData() []byte {
	b := make([]byte, 256<<10)
	copy(b, bytes.Repeat([]byte("A"), 4096))
	copy(b[128<<10:], bytes.Repeat([]byte("B"), 4096))
	copy(b[len(b)-100:], bytes.Repeat([]byte("C"), 100))
	return b
}

func fileURL(t testing.TB, name string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return "file:" + filepath.ToSlash(abs)
}

// TestToolFixtures runs the conformance kit (testing/fstest.TestFS first)
// on every archive a real tool wrote, and checks every member's bytes
// against testdata/src.
func TestToolFixtures(t *testing.T) {
	sparse := map[string][]byte{"sparse.dat": sparseData(), "plain.txt": []byte("not sparse\n")}
	for _, tc := range []struct {
		file  string
		files map[string][]byte
	}{
		{"gnu.tar", toolTree(t, true, true)},
		{"oldgnu.tar", toolTree(t, true, true)},
		{"posix.tar", toolTree(t, true, true)},
		{"ustar.tar", toolTree(t, false, true)},
		{"v7.tar", toolTree(t, false, false)},
		{"bsdtar-pax.tar", toolTree(t, true, true)},
		{"bsdtar-gnu.tar", toolTree(t, true, true)},
		{"bsdtar-ustar.tar", toolTree(t, false, true)},
		{"sparse-gnu.tar", sparse},
		{"sparse-pax0.0.tar", sparse},
		{"sparse-pax0.1.tar", sparse},
		{"sparse-pax1.0.tar", sparse},
		{"sparse-bsdtar.tar", sparse},
		{"posix-global.tar", map[string][]byte{
			"hello.txt": []byte("hello, tar\n"), "dir/a.txt": []byte("file a\n"),
			"dir/sub/b.txt": []byte("file b in sub\n"), "dir/sub/bin.dat": srcFiles(t)["dir/sub/bin.dat"],
			"dir/up": []byte("hello, tar\n"),
		}},
		{"go-dups.tar", map[string][]byte{
			"dup.txt": []byte("second, the last\n"), "d/x.txt": []byte("x in d\n"), "dot.txt": []byte("dot.txt again, the last\n"),
		}},
		{"go-pax.tar", map[string][]byte{"pax.txt": []byte("with records\n"), "after.txt": []byte("after the global header\n")}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c := fstest.Case{Pipeline: fileURL(t, tc.file) + "|pipefs.tar:", Files: tc.files, Exhaustive: true}
			if tc.file == "go-dups.tar" {
				c.Dirs = []string{"e"}
			}
			if _, links := tc.files["dir/up"]; links {
				checkFiles(t, c.Pipeline, tc.files)
			}
			fstest.Run(t, c)
		})
	}
}

// TestSparseIsSparse checks that the sparse fixtures really hold sparse
// members (the tool did not fall back to storing the zeros) and that
// reads inside holes and across fragment edges give the right bytes.
func TestSparseIsSparse(t *testing.T) {
	want := sparseData()
	for _, file := range []string{"sparse-gnu.tar", "sparse-pax0.0.tar", "sparse-pax0.1.tar", "sparse-pax1.0.tar", "sparse-bsdtar.tar"} {
		t.Run(file, func(t *testing.T) {
			a := openFixture(t, file)
			b, err := a.OpenBlob(t.Context(), "sparse.dat")
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := b.(*sparseBlob); !ok {
				t.Fatalf("OpenBlob(sparse.dat) = %T, want a *sparseBlob", b)
			}
			for _, r := range [][2]int{{0, 1}, {4095, 2}, {4000, 8000}, {131000, 200}, {135000, 300000}, {len(want) - 101, 101}, {0, len(want)}} {
				p := make([]byte, r[1])
				n, err := b.ReadAt(t.Context(), p, int64(r[0]))
				end := min(r[0]+r[1], len(want))
				if n != end-r[0] || (end < r[0]+r[1]) != (err == io.EOF) || (err != nil && err != io.EOF) {
					t.Errorf("ReadAt(%d bytes at %d) = %d, %v", r[1], r[0], n, err)
				}
				if !bytes.Equal(p[:n], want[r[0]:end]) {
					t.Errorf("ReadAt(%d bytes at %d) gave the wrong bytes", r[1], r[0])
				}
			}
		})
	}
}

// openFixture opens testdata/name with Open (a private index).
func openFixture(t testing.TB, name string) *Archive {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), driver.BytesBlob(data, nil), nil)
	if err != nil {
		t.Fatalf("Open(%s) error = %v", name, err)
	}
	return a
}

// TestSpecialFiles checks that devices and FIFOs are listed with their
// mode bits and cannot be read.
func TestSpecialFiles(t *testing.T) {
	for _, tc := range []struct {
		file, name string
		mode       fs.FileMode
	}{
		{"go-devices.tar", "dev/null", fs.ModeDevice | fs.ModeCharDevice},
		{"go-devices.tar", "dev/sda", fs.ModeDevice},
		{"go-devices.tar", "dev/fifo", fs.ModeNamedPipe},
		{"fifo.tar", "pipe", fs.ModeNamedPipe},
	} {
		a := openFixture(t, tc.file)
		fi, err := a.Stat(t.Context(), tc.name)
		if err != nil || fi.Mode().Type() != tc.mode {
			t.Errorf("%s: Stat(%s) = %v, %v, want type %v", tc.file, tc.name, fi, err, tc.mode)
		}
		ents, err := a.ReadDir(t.Context(), fsname.Parent(tc.name))
		found := false
		for _, e := range ents {
			found = found || e.Name() == baseName(tc.name) && e.Type() == tc.mode
		}
		if err != nil || !found {
			t.Errorf("%s: ReadDir(%s) = %v, %v, want %s listed as %v", tc.file, fsname.Parent(tc.name), ents, err, tc.name, tc.mode)
		}
		if _, err := a.OpenBlob(t.Context(), tc.name); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s: OpenBlob(%s) error = %v, want errors.ErrUnsupported", tc.file, tc.name, err)
		}
	}
	// The rest of the archive reads fine.
	a := openFixture(t, "fifo.tar")
	b, err := a.OpenBlob(t.Context(), "plain.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := readBlob(t, b); string(got) != "beside a fifo\n" {
		t.Errorf("plain.txt = %q", got)
	}
}

func readBlob(t testing.TB, b driver.Blob) []byte {
	t.Helper()
	p := make([]byte, b.Stat().Size())
	n, err := b.ReadAt(context.Background(), p, 0)
	if n != len(p) || (err != nil && err != io.EOF) {
		t.Fatalf("ReadAt(all) = %d, %v", n, err)
	}
	return p
}

// TestUnsafeNames checks that names fs.ValidPath refuses are kept out of
// the tree and reported by Omitted, and that names it accepts (a
// backslash, a drive letter) are listed.
func TestUnsafeNames(t *testing.T) {
	a := openFixture(t, "go-unsafe.tar")
	var names []string
	err := fs.WalkDir(fstest.TreeFS(a), ".", func(name string, d fs.DirEntry, err error) error {
		names = append(names, name)
		return err
	})
	if want := ". C: C:/drive.txt back\\slash.txt ok.txt"; err != nil || strings.Join(names, " ") != want {
		t.Errorf("WalkDir = %q, %v, want %q", names, err, want)
	}
	omitted, err := a.Omitted(t.Context())
	var got []string
	for _, o := range omitted {
		got = append(got, o.Name)
		if o.Offset <= 0 || o.Offset%blockSize != 0 || o.Reason == "" {
			t.Errorf("Omitted: %+v, want the offset of its header and a reason", o)
		}
	}
	if want := "../evil.txt /abs.txt a/../../b.txt a//b.txt"; err != nil || strings.Join(got, " ") != want {
		t.Errorf("Omitted() = %q, %v, want %q", got, err, want)
	}
	hidden, err := a.Unreachable(t.Context())
	if err != nil || len(hidden) != 4 {
		t.Errorf("Unreachable() = %d headers, %v, want 4", len(hidden), err)
	}
	for _, name := range []string{"../evil.txt", "/abs.txt", "abs.txt", "b.txt", "a/b.txt", "evil.txt"} {
		if _, err := a.Stat(t.Context(), name); err == nil {
			t.Errorf("Stat(%q) = nil error, want an error", name)
		}
	}
	for name, want := range map[string]string{`back\slash.txt`: "backslash\n", "C:/drive.txt": "drive letter\n"} {
		got, err := readEverything(t.Context(), a)
		if err != nil || got[name] != want {
			t.Errorf("%s reads %q, %v, want %q", name, got[name], err, want)
		}
	}
}

// TestLinks checks the link rules on go-links.tar.
func TestLinks(t *testing.T) {
	a := openFixture(t, "go-links.tar")
	ctx := t.Context()
	read := func(name string) (string, error) {
		b, err := a.OpenBlob(ctx, name)
		if err != nil {
			return "", err
		}
		return string(readBlob(t, b)), nil
	}
	for _, tc := range []struct {
		name, want string
	}{
		{"in", "the target, overwritten\n"},
		{"d/up", "the target, overwritten\n"},
		{"d/self/inner.txt", "inner\n"},
		{"dirlink/inner.txt", "inner\n"},
		{"dirlink/self/self/up", "the target, overwritten\n"},
		{"chain1", "inner\n"},
		{"hard1", "the target\n"},
		{"hard2", "the target\n"},
		{"hard-old", "the target\n"},
		{"hardsym", "the target, overwritten\n"},
		{"target.txt", "the target, overwritten\n"},
	} {
		got, err := read(tc.name)
		if err != nil || got != tc.want {
			t.Errorf("read %q = %q, %v, want %q", tc.name, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		is   error
	}{
		{"out-abs", driver.ErrUnsafePath},
		{"out-up", driver.ErrUnsafePath},
		{"d/out-up2", driver.ErrUnsafePath},
		{"loop1", driver.ErrCorrupt},
		{"selfloop", driver.ErrCorrupt},
		{"hard-missing", driver.ErrCorrupt},
		{"hard-dir", driver.ErrCorrupt},
		{"hloop1", driver.ErrCorrupt},
		{"hloop2", driver.ErrCorrupt},
		{"hard-before", driver.ErrCorrupt},
		{"d", driver.ErrIsDir},
		{"dirlink", driver.ErrIsDir},
		{"in/x", fs.ErrNotExist},
		{"nothing", fs.ErrNotExist},
	} {
		if _, err := read(tc.name); !errors.Is(err, tc.is) {
			t.Errorf("read %q error = %v, want %v", tc.name, err, tc.is)
		}
	}
	// Links that leave the archive are described as links; links inside
	// are followed by Stat and listed as links by ReadDir.
	for _, tc := range []struct {
		name string
		mode fs.FileMode
	}{
		{"out-abs", fs.ModeSymlink},
		{"out-up", fs.ModeSymlink},
		{"d/out-up2", fs.ModeSymlink},
		{"in", 0},
		{"dirlink", fs.ModeDir},
		{"d/self", fs.ModeDir},
		{"hardsym", 0},
	} {
		fi, err := a.Stat(ctx, tc.name)
		if err != nil || fi.Mode().Type() != tc.mode || fi.Name() != baseName(tc.name) {
			t.Errorf("Stat(%q) = %v, %v, want type %v", tc.name, fi, err, tc.mode)
		}
	}
	ents, err := a.ReadDir(ctx, ".")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]fs.FileMode{}
	for _, e := range ents {
		types[e.Name()] = e.Type()
	}
	for _, name := range []string{"in", "dirlink", "out-abs", "loop1", "hardsym"} {
		if types[name] != fs.ModeSymlink {
			t.Errorf("ReadDir(.) lists %q as %v, want a symlink", name, types[name])
		}
	}
	if types["hard1"] != 0 || types["d"] != fs.ModeDir {
		t.Errorf("ReadDir(.) types: hard1 %v, d %v", types["hard1"], types["d"])
	}
	list, err := a.ReadDir(ctx, "dirlink")
	if err != nil || len(list) != 4 {
		t.Errorf("ReadDir(dirlink) = %v, %v, want the 4 entries of d", list, err)
	}
	if _, err := a.Stat(ctx, "loop1"); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("Stat(loop1) error = %v, want a loop error", err)
	}
}

// TestPaxRecords checks that pax records reach Sys and global headers are
// kept apart.
func TestPaxRecords(t *testing.T) {
	a := openFixture(t, "go-pax.tar")
	fi, err := a.Stat(t.Context(), "pax.txt")
	if err != nil {
		t.Fatal(err)
	}
	th, ok := fi.Sys().(*tar.Header)
	if !ok || th.PAXRecords["comment"] != "a note" || th.PAXRecords["SCHILY.xattr.user.k"] != "v" {
		t.Errorf("Stat(pax.txt).Sys() = %#v, want the *tar.Header with its pax records", fi.Sys())
	}
	g, err := a.GlobalHeaders(t.Context())
	if err != nil || len(g) != 1 || g[0].PAXRecords["comment"] != "global" {
		t.Errorf("GlobalHeaders() = %v, %v", g, err)
	}
	// GNU tar's per-member records and global header.
	p := openFixture(t, "posix.tar")
	fi, err = p.Stat(t.Context(), longName)
	if err != nil || fi.Sys().(*tar.Header).PAXRecords["comment"] != "per-member note" {
		t.Errorf("posix.tar: Stat(%s) = %v, %v, want the comment record", longName, fi, err)
	}
	pg := openFixture(t, "posix-global.tar")
	if g, err := pg.GlobalHeaders(t.Context()); err != nil || len(g) != 1 || g[0].PAXRecords["comment"] != "global note" {
		t.Errorf("posix-global.tar: GlobalHeaders() = %v, %v", g, err)
	}
}

// TestDuplicates checks the duplicate rules beyond the contents that the
// kit checks.
func TestDuplicates(t *testing.T) {
	a := openFixture(t, "go-dups.tar")
	for _, name := range []string{"d", "e"} {
		if fi, err := a.Stat(t.Context(), name); err != nil || !fi.IsDir() {
			t.Errorf("Stat(%s) = %v, %v, want a directory", name, fi, err)
		}
	}
	hidden, err := a.Unreachable(t.Context())
	if err != nil || len(hidden) != 4 {
		t.Errorf("Unreachable() = %d headers, %v, want 4 (dup.txt, d, e, ./dot.txt)", len(hidden), err)
	}
}

// TestTarGz chains the gzip adapter.
func TestTarGz(t *testing.T) {
	if !slices.Contains(vfs.DefaultRegistry.Schemes(), "gzip") {
		t.Fatal("the gzip adapter is not registered, although link_test.go imports it")
	}
	c := fstest.Case{Pipeline: fileURL(t, "gnu.tar.gz") + "|gzip:|pipefs.tar:", Files: toolTree(t, true, true), Exhaustive: true}
	checkFiles(t, c.Pipeline, c.Files)
	fstest.Run(t, c)
}

// checkFiles checks that the pipeline's FS holds exactly files (links
// count as the files they lead to), with their bytes and sizes.
func checkFiles(t *testing.T, pipeline string, files map[string][]byte) {
	t.Helper()
	fsys, err := vfs.OpenFS(t.Context(), pipeline, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	seen := map[string]bool{}
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			seen[name] = true
		}
		return err
	})
	if err != nil {
		t.Errorf("WalkDir: %v", err)
	}
	for name, want := range files {
		got, err := fsys.ReadFile(name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ReadFile(%q) = %d bytes, %v, want %d bytes", name, len(got), err, len(want))
		}
		if fi, err := fsys.Stat(name); err != nil || fi.Size() != int64(len(want)) || !fi.Mode().IsRegular() {
			t.Errorf("Stat(%q) = %v, %v, want a regular file of %d bytes", name, fi, err, len(want))
		}
		if !seen[name] {
			t.Errorf("WalkDir did not visit %q", name)
		}
		delete(seen, name)
	}
	for name := range seen {
		t.Errorf("the tree lists %q, which is not expected", name)
	}
}

// TestInZip reads a tar stored and deflated in a zip: the members of the
// stored one are sections of a section of the zip file.
func TestInZip(t *testing.T) {
	gnu := readFixture(t, "posix-global.tar")
	want := map[string][]byte{
		"hello.txt": []byte("hello, tar\n"), "dir/a.txt": []byte("file a\n"),
		"dir/sub/b.txt": []byte("file b in sub\n"), "dir/sub/bin.dat": srcFiles(t)["dir/sub/bin.dat"],
		"dir/up": []byte("hello, tar\n"),
	}
	for _, m := range []uint16{zip.Store, zip.Deflate} {
		prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": fstest.ZipBytes(map[string][]byte{"in/a.tar": gnu}, m)})
		base := "memory:/" + prefix + "/a.zip|zip:in/a.tar"
		checkFiles(t, base+"|pipefs.tar:", want)
		// Detection appends the adapter.
		fsys, err := vfs.OpenFS(t.Context(), base, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := fsys.Pipeline().String(); got != base+"|pipefs.tar:" {
			t.Errorf("detected pipeline = %q, want %q", got, base+"|pipefs.tar:")
		}
		fsys.Close()
	}
}

// TestValidNames checks that names fs.ValidPath accepts are listed as
// they are, whatever an OS would make of them.
func TestValidNames(t *testing.T) {
	names := []string{"a:stream", "C:/x.txt", `back\slash`, "sp ace #%?.txt", "-dash", "tab\there"}
	var files []string
	for _, n := range names {
		files = append(files, n, "data of "+n)
	}
	a, err := Open(t.Context(), driver.BytesBlob(ustarArchive(t, files...), nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readEverything(t.Context(), a)
	if err != nil || len(got) != len(names) {
		t.Errorf("read %d files, %v; want %d", len(got), err, len(names))
	}
	for _, n := range names {
		if got[n] != "data of "+n {
			t.Errorf("%q reads %q", n, got[n])
		}
	}
	if o, err := a.Omitted(t.Context()); err != nil || len(o) != 0 {
		t.Errorf("Omitted() = %v, %v; want none", o, err)
	}
}
