package vfs_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	_ "github.com/pipefs/pipefs/adapters/taradapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	pfstest "github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// A member is one entry of an archive made for a test.
type member struct {
	name string
	typ  byte   // tar.TypeReg, TypeDir, TypeSymlink or TypeLink
	body string // a file's content, a link's target
}

// linkMembers are entries with every kind of link: relative, absolute,
// dangling, to a directory, with "..", and (tar only) a hard link to a
// symbolic link.
var linkMembers = []member{
	{"dir/", tar.TypeDir, ""},
	{"dir/file.txt", tar.TypeReg, "hello\n"},
	{"dir/up", tar.TypeSymlink, "../rel"},
	{"plain.txt", tar.TypeReg, "plain\n"},
	{"rel", tar.TypeSymlink, "dir/file.txt"},
	{"abs", tar.TypeSymlink, "/etc/passwd"},
	{"dangling", tar.TypeSymlink, "no/such/file"},
	{"todir", tar.TypeSymlink, "dir"},
	{"hard", tar.TypeLink, "rel"},
}

var t0 = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

func tarArchive(t *testing.T, members []member) []byte {
	t.Helper()
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, m := range members {
		h := &tar.Header{Name: m.name, Typeflag: m.typ, Mode: 0o644, ModTime: t0, Format: tar.FormatPAX}
		switch m.typ {
		case tar.TypeReg:
			h.Size = int64(len(m.body))
		case tar.TypeDir:
			h.Mode = 0o755
		default:
			h.Linkname, h.Mode = m.body, 0o777
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if m.typ == tar.TypeReg {
			io.WriteString(w, m.body)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zipArchive writes members as Info-ZIP does: a link is a member whose
// mode is a symbolic link and whose content is the target. A hard link
// has no zip form and is left out.
func zipArchive(t *testing.T, members []member) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: t0}
		switch m.typ {
		case tar.TypeReg:
			h.SetMode(0o644)
		case tar.TypeDir:
			h.SetMode(fs.ModeDir | 0o755)
		case tar.TypeSymlink:
			h.SetMode(fs.ModeSymlink | 0o777)
		default:
			continue
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, m.body)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tarLinks returns the targets of the links of a tar archive as
// archive/tar reads them, a hard link to a symbolic link being that link.
func tarLinks(t *testing.T, data []byte) map[string]string {
	t.Helper()
	links := map[string]string{}
	r := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := r.Next()
		if err == io.EOF {
			return links
		}
		if err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeSymlink:
			links[h.Name] = h.Linkname
		case tar.TypeLink:
			if target, ok := links[h.Linkname]; ok {
				links[h.Name] = target
			}
		}
	}
}

// zipLinks returns the targets of the links of a zip archive as
// archive/zip reads them: the content of each member whose mode is a
// symbolic link.
func zipLinks(t *testing.T, data []byte) map[string]string {
	t.Helper()
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for _, f := range r.File {
		if f.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		links[f.Name] = string(b)
	}
	return links
}

// openArchive writes data to a file named base in a temporary directory
// and opens it with adapter, returning the FS and the file's path.
func openArchive(t *testing.T, base, adapter string, data []byte) (*vfs.FS, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), base)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(p)+"|"+adapter, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys, p
}

// checkLinks checks fs.ReadLink and fs.Lstat on every entry of fsys
// against want, the targets of its links as the reference reader gives
// them, and runs testing/fstest over directory testDir of fsys, which
// must hold the expected files: it checks Lstat against the listing of
// every entry.
func checkLinks(t *testing.T, fsys *vfs.FS, want map[string]string, testDir string, expected ...string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("no links to check")
	}
	seen := map[string]bool{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target, rerr := fs.ReadLink(fsys, name)
		info, lerr := fs.Lstat(fsys, name)
		if lerr != nil {
			t.Errorf("Lstat(%q): %v", name, lerr)
		} else if info.Mode().Type() != d.Type() || (name != "." && info.Name() != d.Name()) {
			t.Errorf("Lstat(%q) = %v, listed as %v", name, info, d)
		} else if o, ok := info.Sys().(*vfs.Origin); !ok || o.URL != fsys.URL(name) {
			t.Errorf("Lstat(%q).Sys() = %#v, want an Origin with URL %q", name, info.Sys(), fsys.URL(name))
		}
		if d.Type()&fs.ModeSymlink == 0 {
			if _, isLink := want[name]; isLink {
				t.Errorf("%s is listed as %v, not as a symbolic link", name, d.Type())
			}
			var pe *fs.PathError
			if !errors.Is(rerr, fs.ErrInvalid) || !errors.Is(rerr, vfs.ErrNotLink) || errors.Is(rerr, vfs.ErrCorrupt) ||
				!errors.As(rerr, &pe) || pe.Op != "readlink" || pe.Path != name {
				t.Errorf("ReadLink(%q) of a %v: %q, %v; want a readlink PathError matching fs.ErrInvalid", name, d.Type(), target, rerr)
			}
			return nil
		}
		seen[name] = true
		if w, ok := want[name]; rerr != nil || !ok || target != w {
			t.Errorf("ReadLink(%q) = %q, %v; the reference reader says %q (found: %v)", name, target, rerr, w, ok)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("link %s is not listed", name)
		}
	}
	for _, op := range []func(fs.FS, string) error{
		func(f fs.FS, n string) error { _, err := fs.ReadLink(f, n); return err },
		func(f fs.FS, n string) error { _, err := fs.Lstat(f, n); return err },
	} {
		for _, name := range []string{"missing", "dir/missing", "plain.txt/x"} {
			var se *vfs.StageError
			if err := op(fsys, name); !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &se) {
				t.Errorf("%s: %v; want fs.ErrNotExist naming the sub-URL", name, err)
			}
		}
		if err := op(fsys, "../x"); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("../x: %v, want fs.ErrInvalid", err)
		}
	}
	// testing/fstest opens every entry, which fails for a dangling link
	// that is followed (a tar's): it gets the directory without one.
	sub, err := fs.Sub(fsys, testDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(sub, expected...); err != nil {
		t.Error(err)
	}
}

func TestReadLinkTar(t *testing.T) {
	data := tarArchive(t, linkMembers)
	fsys, _ := openArchive(t, "links.tar", "pipefs.tar:", data)
	want := tarLinks(t, data)
	if want["hard"] != "dir/file.txt" {
		t.Fatalf("archive/tar: the hard link to rel reads as %q", want["hard"])
	}
	checkLinks(t, fsys, want, "dir", "file.txt", "up")

	// Stat follows a link inside the archive; Lstat does not.
	info, err := fs.Stat(fsys, "rel")
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(len("hello\n")) {
		t.Errorf("Stat(rel) = %v, %v; want the file it leads to", info, err)
	}
	if info, err := fs.Lstat(fsys, "hard"); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(hard) = %v, %v; want the symbolic link it is", info, err)
	} else if o := info.Sys().(*vfs.Origin); o.Header.(*tar.Header).Typeflag != tar.TypeLink {
		t.Errorf("Lstat(hard).Sys header: %+v, want its own hard-link header", o.Header)
	}
	// Links in parent directories are followed, a final one is not.
	if got, err := fs.ReadLink(fsys, "todir/up"); err != nil || got != "../rel" {
		t.Errorf("ReadLink(todir/up) = %q, %v; want the target of dir/up", got, err)
	}
	if info, err := fs.Lstat(fsys, "todir/up"); err != nil || info.Name() != "up" || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(todir/up) = %v, %v", info, err)
	}
	// Through fs.Sub, names are the sub-tree's.
	sub, err := fs.Sub(fsys, "dir")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadLink(sub, "up"); err != nil || got != "../rel" {
		t.Errorf("ReadLink(Sub(dir), up) = %q, %v", got, err)
	}
}

func TestReadLinkZip(t *testing.T) {
	data := zipArchive(t, linkMembers)
	fsys, _ := openArchive(t, "links.zip", "zip:", data)
	checkLinks(t, fsys, zipLinks(t, data), ".", "plain.txt", "dir/file.txt", "dangling")
}

// TestReadLinkZipTooLong refuses a link whose target is longer than a
// path may be, before reading it, and reads one of exactly that length.
func TestReadLinkZipTooLong(t *testing.T) {
	long := strings.Repeat("a/", 2500)
	fit := strings.Repeat("b", 4096)
	data := zipArchive(t, []member{{"long", tar.TypeSymlink, long}, {"fit", tar.TypeSymlink, fit}})
	fsys, _ := openArchive(t, "long.zip", "zip:", data)
	_, err := fs.ReadLink(fsys, "long")
	var pe *fs.PathError
	if !errors.Is(err, vfs.ErrCorrupt) || !errors.As(err, &pe) || pe.Path != "long" {
		t.Errorf("ReadLink of a %d-byte target: %v; want ErrCorrupt", len(long), err)
	}
	if got, err := fs.ReadLink(fsys, "fit"); err != nil || got != fit {
		t.Errorf("ReadLink of a 4096-byte target: %d bytes, %v", len(got), err)
	}
	if info, err := fs.Lstat(fsys, "long"); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(long) = %v, %v", info, err)
	}
}

// TestReadLinkLocal reads the links of a local directory as os.Readlink
// does.
func TestReadLinkLocal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rel": "plain.txt", "abs": "/etc/passwd", "out": "../../elsewhere", "dangling": "no/such"}
	for name, target := range want {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	for name := range want {
		got, err := fs.ReadLink(fsys, name)
		ref, rerr := os.Readlink(filepath.Join(dir, name))
		if err != nil || rerr != nil || got != ref {
			t.Errorf("ReadLink(%s) = %q, %v; os.Readlink: %q, %v", name, got, err, ref, rerr)
		}
		if info, err := fs.Lstat(fsys, name); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Lstat(%s) = %v, %v", name, info, err)
		}
	}
	if _, err := fs.ReadLink(fsys, "plain.txt"); !errors.Is(err, fs.ErrInvalid) || !errors.Is(err, vfs.ErrNotLink) {
		t.Errorf("ReadLink of a file: %v, want fs.ErrInvalid", err)
	}
	if _, err := fs.ReadLink(fsys, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadLink of nothing: %v, want fs.ErrNotExist", err)
	}
}

// TestReadLinkBsdtar compares the links of a tar archive with what
// bsdtar -tv lists: "NAME -> TARGET" for a symbolic link and "NAME link
// to TARGET" for a hard link.
func TestReadLinkBsdtar(t *testing.T) {
	bsdtar := pfstest.NeedTool(t, "bsdtar")
	fsys, p := openArchive(t, "links.tar", "pipefs.tar:", tarArchive(t, linkMembers))
	out, err := exec.Command(bsdtar, "-tvf", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for line := range strings.Lines(string(out)) {
		line = strings.TrimSuffix(line, "\n")
		if left, target, ok := strings.Cut(line, " -> "); ok {
			name := left[strings.LastIndexByte(left, ' ')+1:]
			if !strings.HasPrefix(line, "l") {
				t.Errorf("bsdtar lists %q with an arrow but not as a link", line)
			}
			links++
			if got, err := fs.ReadLink(fsys, name); err != nil || got != target {
				t.Errorf("ReadLink(%s) = %q, %v; bsdtar: %q", name, got, err, target)
			}
			continue
		}
		if left, to, ok := strings.Cut(line, " link to "); ok {
			name := left[strings.LastIndexByte(left, ' ')+1:]
			links++
			got, err := fs.ReadLink(fsys, name)
			ref, rerr := fs.ReadLink(fsys, to)
			if err != nil || rerr != nil || got != ref {
				t.Errorf("ReadLink(%s) = %q, %v; it is a hard link to %s, whose target is %q, %v", name, got, err, to, ref, rerr)
			}
		}
	}
	if n := len(tarLinks(t, tarArchive(t, linkMembers))); links != n {
		t.Errorf("bsdtar lists %d links, archive/tar %d:\n%s", links, n, out)
	}
}
