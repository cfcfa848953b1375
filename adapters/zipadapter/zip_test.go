package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pipefs/pipefs/vfs/driver"

	pfstest "github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// srcFiles returns the files that make.sh fed to the tools, keyed by their
// names in the archives.
func srcFiles(t testing.TB) map[string]string {
	t.Helper()
	want := map[string]string{}
	root := filepath.Join("testdata", "src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		want[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

func readSrc(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "src", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func openFile(t testing.TB, name string, o *vfs.Options) *Archive {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), driver.BytesBlob(b, nil), o)
	if err != nil {
		t.Fatalf("Open(%s) = %v", name, err)
	}
	return a
}

type fixture struct {
	name    string
	want    map[string]string // regular files and their contents ("->link" for links)
	dirs    []string          // directories that must exist
	comment string            // archive comment
	hidden  int               // entries in Unreachable
}

func fixtures(t testing.TB) []fixture {
	src := srcFiles(t)
	srcDirs := []string{"dir", "dir/sub"}
	return []fixture{
		{name: "infozip.zip", want: src, dirs: srcDirs, comment: "archive comment from Info-ZIP"},
		{name: "infozip-stored.zip", want: src, dirs: srcDirs},
		{name: "infozip-zip64.zip", want: src, dirs: srcDirs},
		{name: "infozip-descriptor.zip", want: src, dirs: srcDirs},
		{name: "infozip-stream.zip", want: map[string]string{"-": readSrc(t, "dir/a.txt")}},
		{name: "bsdtar.zip", want: src, dirs: srcDirs},
		{name: "7z.zip", want: src, dirs: srcDirs},
		{name: "7z-stored.zip", want: src, dirs: srcDirs},
		{name: "sfx-unfixed.zip", want: src, dirs: srcDirs, comment: "archive comment from Info-ZIP"},
		{name: "sfx-fixed.zip", want: src, dirs: srcDirs, comment: "archive comment from Info-ZIP"},
		{name: "go-empty.zip", want: map[string]string{}},
		{name: "go-implicit.zip", want: map[string]string{
			"a/b/c.txt": "c\n", "a/d.txt": "d\n", "e/f/g/h.txt": "h\n", "top.txt": "top\n",
		}, dirs: []string{"a", "a/b", "e", "e/f", "e/f/g"}},
		{name: "go-comments.zip", want: map[string]string{"x.txt": "x\n", "y/z.txt": "z\n"},
			dirs: []string{"y"}, comment: "archive comment: made by archive/zip"},
		{name: "go-dups.zip", want: map[string]string{"same.txt": "third\n", "d/in.txt": "in d\n"},
			dirs: []string{"d", "e"}, hidden: 4},
		{name: "go-unsafe.zip", want: map[string]string{"ok/safe.txt": "safe\n",
			"C:/drive.txt": "drive\n", "c:drive2.txt": "drive\n", "dot.txt": "dot\n"}, dirs: []string{"ok", "C:"}, hidden: 7},
		{name: "go-symlink.zip", want: map[string]string{"target.txt": "target\n", "link": "->link", "escape": "->link"}},
		{name: "nest-stored.zip", want: map[string]string{"o.txt": "outer\n", "mid.zip": ""}},
		{name: "nest-deflate.zip", want: map[string]string{"o.txt": "outer\n", "mid.zip": ""}},
	}
}

func TestFixtures(t *testing.T) {
	for _, tc := range fixtures(t) {
		t.Run(tc.name, func(t *testing.T) {
			a := openFile(t, tc.name, nil)
			got, err := readAll(a, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "nest-stored.zip" || tc.name == "nest-deflate.zip" {
				got["mid.zip"] = "" // checked by TestNested
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("files = %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(tc.want)))
				for k, v := range tc.want {
					if got[k] != v {
						t.Errorf("%s = %q, want %q", k, got[k], v)
					}
				}
			}
			for _, d := range tc.dirs {
				fi, err := a.Stat(context.Background(), d)
				if err != nil || fi.Mode() != fs.ModeDir|0o555 {
					t.Errorf("Stat(%s) = %v, %v, want a directory", d, fi, err)
				}
			}
			var r *zip.Reader
			if !a.As(&r) {
				t.Fatal("As(**zip.Reader) = false")
			}
			if r.Comment != tc.comment {
				t.Errorf("comment = %q, want %q", r.Comment, tc.comment)
			}
			if n := len(a.Unreachable()); n != tc.hidden {
				t.Errorf("len(Unreachable()) = %d, want %d", n, tc.hidden)
			}
			var names []string
			for name := range tc.want {
				names = append(names, name)
			}
			if err := fstest.TestFS(pfstest.TreeFS(a), names...); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestStat(t *testing.T) {
	ctx := context.Background()
	a := openFile(t, "infozip.zip", nil)
	fi, err := a.Stat(ctx, "hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	h, ok := fi.Sys().(*zip.FileHeader)
	if !ok || h.Name != "hello.txt" || h.Comment != "comment of hello" {
		t.Errorf("Stat(hello.txt).Sys() = %#v, want the header with its comment", fi.Sys())
	}
	if fi.Mode() != 0o644 || fi.Size() != int64(len("hello, zip\n")) {
		t.Errorf("Stat(hello.txt) = %v", fi)
	}
	root, err := a.Stat(ctx, ".")
	if err != nil || root.Mode() != fs.ModeDir|0o555 || root.Name() != "." {
		t.Errorf("Stat(.) = %v, %v", root, err)
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"missing", fs.ErrNotExist},
		{"hello.txt/x", fs.ErrNotExist},
		{"/hello.txt", fs.ErrInvalid},
		{"dir/", fs.ErrInvalid},
	} {
		if _, err := a.Stat(ctx, tc.name); !errors.Is(err, tc.err) {
			t.Errorf("Stat(%q) = %v, want %v", tc.name, err, tc.err)
		}
		if _, err := a.OpenBlob(ctx, tc.name); !errors.Is(err, tc.err) {
			t.Errorf("OpenBlob(%q) = %v, want %v", tc.name, err, tc.err)
		}
	}
	if _, err := a.OpenBlob(ctx, "dir"); !errors.Is(err, driver.ErrIsDir) {
		t.Errorf("OpenBlob(dir) = %v, want ErrIsDir", err)
	}
	if _, err := a.OpenBlob(ctx, "."); !errors.Is(err, driver.ErrIsDir) {
		t.Errorf("OpenBlob(.) = %v, want ErrIsDir", err)
	}
	if _, err := a.ReadDir(ctx, "hello.txt"); !errors.Is(err, driver.ErrNotDir) {
		t.Errorf("ReadDir(hello.txt) = %v, want ErrNotDir", err)
	}
	list, err := a.ReadDir(ctx, "dir")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	if want := []string{"a.txt", "sub"}; !slices.Equal(names, want) {
		t.Errorf("ReadDir(dir) = %v, want %v", names, want)
	}
}

func TestDuplicates(t *testing.T) {
	ctx := context.Background()
	a := openFile(t, "go-dups.zip", nil)
	for _, name := range []string{"d", "e"} {
		fi, err := a.Stat(ctx, name)
		if err != nil || !fi.IsDir() {
			t.Errorf("Stat(%s) = %v, %v, want the directory", name, fi, err)
		}
	}
	var hidden []string
	for _, f := range a.Unreachable() {
		hidden = append(hidden, f.Name)
	}
	if want := []string{"same.txt", "same.txt", "d", "e"}; !slices.Equal(hidden, want) {
		t.Errorf("Unreachable() = %q, want %q", hidden, want)
	}
}

func TestUnsafeNames(t *testing.T) {
	a := openFile(t, "go-unsafe.zip", nil)
	for _, f := range a.Unreachable() {
		name := strings.TrimSuffix(f.Name, "/")
		if fs.ValidPath(name) {
			if _, err := a.Stat(context.Background(), name); err == nil {
				t.Errorf("unsafe %q is reachable", f.Name)
			}
		}
	}
	list, _ := a.ReadDir(context.Background(), ".")
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	if want := []string{"C:", "c:drive2.txt", "dot.txt", "ok"}; !slices.Equal(names, want) {
		t.Errorf("ReadDir(.) = %q, want %q", names, want)
	}
	// Every name left out is reported, with its header's offset, but the
	// empty name, which is the root.
	om, err := a.Omitted(context.Background())
	var got []string
	for _, o := range om {
		got = append(got, o.Name)
		if o.Offset < 0 || o.Reason == "" {
			t.Errorf("omission %+v has no offset or reason", o)
		}
	}
	if want := []string{"../evil.txt", "/abs.txt", "back\\slash.txt", "a//b.txt", "x/../y.txt", "nul\x00.txt"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Omitted() = %q, %v, want %q", got, err, want)
	}
	var _ driver.Omitter = a
}

func TestSymlink(t *testing.T) {
	a := openFile(t, "go-symlink.zip", nil)
	fi, err := a.Stat(context.Background(), "link")
	if err != nil || fi.Mode().Type() != fs.ModeSymlink {
		t.Fatalf("Stat(link) = %v, %v, want a symlink", fi, err)
	}
	_, err = a.OpenBlob(context.Background(), "escape")
	if !errors.Is(err, driver.ErrUnsafePath) || !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("OpenBlob(escape) = %v, want ErrUnsafePath and fs.ErrInvalid", err)
	}
}

// TestNested opens a member blob as an archive, three levels down.
func TestNested(t *testing.T) {
	for _, name := range []string{"nest-stored.zip", "nest-deflate.zip"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			a := openFile(t, name, nil)
			path := []string{"mid.zip", "deep/deep.zip"}
			var tree driver.Tree = a
			for _, p := range path {
				b, err := tree.OpenBlob(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				inner := b
				if c, ok := b.(*checkedBlob); ok {
					inner = c.Blob // the CRC-32 check reads the section in place
				}
				if name == "nest-stored.zip" && !strings.Contains(strings.ToLower(typeName(inner)), "section") {
					t.Errorf("stored member %s is a %s, want a section", p, typeName(inner))
				}
				tree, err = Open(ctx, b, nil)
				if err != nil {
					t.Fatalf("Open(%s) = %v", p, err)
				}
			}
			got, err := readAll(tree, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"hello.txt": "hello from three zips down\n"}; !maps.Equal(got, want) {
				t.Errorf("innermost = %q, want %q", got, want)
			}
		})
	}
}

func typeName(v any) string {
	return strings.TrimPrefix(strings.TrimPrefix(reflectTypeString(v), "*"), "vfs.")
}

func TestDeflateRandomAccess(t *testing.T) {
	ctx := context.Background()
	a := openFile(t, "infozip.zip", nil)
	want := readSrc(t, "dir/a.txt")
	b, err := a.OpenBlob(ctx, "dir/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer b.(io.Closer).Close()
	// Backwards, forwards, overlapping, past the end.
	for _, off := range []int{3000, 10, 10, 2000, 0, len(want) - 5, 1, len(want)} {
		p := make([]byte, 100)
		n, err := b.ReadAt(ctx, p, int64(off))
		end := min(off+100, len(want))
		if string(p[:n]) != want[off:end] {
			t.Errorf("ReadAt(%d) = %q, want %q", off, p[:n], want[off:end])
		}
		if (end-off < 100) != (err == io.EOF) || (err != nil && err != io.EOF) {
			t.Errorf("ReadAt(%d) err = %v", off, err)
		}
	}
	if _, err := b.ReadAt(ctx, make([]byte, 1), -1); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadAt(-1) = %v, want fs.ErrInvalid", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.ReadAt(cctx, make([]byte, 10), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAt(cancelled) = %v, want context.Canceled", err)
	}
	p := make([]byte, 10)
	if n, err := b.ReadAt(ctx, p, 5); err != nil || string(p[:n]) != want[5:15] {
		t.Errorf("ReadAt after cancel = %q, %v", p[:n], err)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range fixtures(t) {
		b, err := os.ReadFile(filepath.Join("testdata", tc.name))
		if err != nil {
			t.Fatal(err)
		}
		tail := b[max(0, len(b)-maxEndRecordLen):]
		if !Match(nil, tail, int64(len(b))) {
			t.Errorf("Match(%s) = false, want true", tc.name)
		}
	}
	for _, s := range []string{"", "PK\x05\x06", "hello world", strings.Repeat("PK\x05\x06", 10),
		"PK\x05\x06" + strings.Repeat("\x00", 16) + "\x05\x00", "xPK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00\x10\x00\x00\x00\x10\x00\x00\x00\x00\x00"} {
		if Match(nil, []byte(s), int64(len(s))) {
			t.Errorf("Match(%q) = true, want false", s)
		}
	}
	// A zip whose end record is followed by other bytes is not detected.
	b, _ := os.ReadFile(filepath.Join("testdata", "infozip.zip"))
	b = append(b, "trailing"...)
	if Match(nil, b, int64(len(b))) {
		t.Error("Match(zip + trailing bytes) = true, want false")
	}
}

func TestRegistered(t *testing.T) {
	var found bool
	for _, f := range vfs.DefaultRegistry.Formats() {
		if f.Name == "zip" {
			found = true
		}
	}
	if !found || !slices.Contains(vfs.DefaultRegistry.Schemes(), "zip") {
		t.Errorf("zip not registered: schemes %v", vfs.DefaultRegistry.Schemes())
	}
}

// TestDotSlashNames reads names as bsdtar writes them for "bsdtar --format
// zip -cf x.zip .": "./" is the root, and "./a.txt" is "a.txt".
func TestDotSlashNames(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range []string{"./", "./a.txt", "./d/", "./d/b.txt", "././c.txt", "a:stream"} {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(n, "/") {
			io.WriteString(w, "content of "+n)
		}
	}
	zw.Close()
	a, err := Open(context.Background(), driver.BytesBlob(buf.Bytes(), nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(pfstest.TreeFS(a), "a.txt", "d/b.txt", "c.txt", "a:stream"); err != nil {
		t.Error(err)
	}
	if om, _ := a.Omitted(context.Background()); len(om) != 0 {
		t.Errorf("Omitted() = %v, want none", om)
	}
}
