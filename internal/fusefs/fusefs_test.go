package fusefs_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/fusefs"
	"github.com/pipefs/pipefs/vfs"

	_ "github.com/pipefs/pipefs/all"
)

// needFUSE stops t when FUSE cannot be mounted here: it skips outside CI
// and fails in CI, which always has /dev/fuse and fusermount3.
func needFUSE(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		fstest.Unavailable(t, "FUSE is not available: %v", err)
	}
	fstest.NeedTool(t, "fusermount3")
}

// logged collects what a mount logs.
type logged struct {
	mu    sync.Mutex
	lines []string
}

func (l *logged) log(url string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, url+": "+err.Error())
}

func (l *logged) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func (l *logged) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// mountPipeline opens pipeline with o and mounts it on a new directory,
// which it returns with what the mount logs. Cleanup unmounts it, lazily
// with fusermount3 -u -z if need be, whatever the test did.
func mountPipeline(t *testing.T, pipeline string, o *vfs.Options) (string, *logged) {
	t.Helper()
	needFUSE(t)
	fsys, err := vfs.OpenFS(context.Background(), pipeline, o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l := &logged{}
	srv, err := fusefs.Mount(dir, fsys, &fusefs.Options{Log: l.log})
	if err != nil {
		fsys.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := srv.Unmount(); err != nil {
			t.Errorf("Unmount: %v", err)
			if out, err := exec.Command("fusermount3", "-u", "-z", dir).CombinedOutput(); err != nil {
				t.Errorf("fusermount3 -u -z: %v: %s", err, out)
			}
		}
		fsys.Close()
	})
	return dir, l
}

// mountFile mounts the archive at path, opened through format detection.
func mountFile(t *testing.T, path string) (string, *logged) {
	t.Helper()
	p, err := vfs.FromPath(path)
	if err != nil {
		t.Fatal(err)
	}
	return mountPipeline(t, p.String(), freshOptions())
}

// freshOptions returns options with a cache of their own and no disk
// cache, so that nothing depends on what other tests left.
func freshOptions() *vfs.Options {
	return &vfs.Options{Cache: vfs.NewCache(256 << 20)}
}

// A member is one entry of a test archive.
type member struct {
	name string
	data []byte
	link string // symbolic link target
	hard string // hard link target (tar only)
	dir  bool
}

// members are the entries of the archives that TestTree mounts.
func members() []member {
	return []member{
		{name: "README.txt", data: []byte("hello, mount\n")},
		{name: "empty.txt", data: nil},
		{name: "docs/", dir: true},
		{name: "docs/guide.md", data: bytes.Repeat([]byte("# guide\nsome text\n"), 1000)},
		{name: "docs/deep/er/still/file.bin", data: fstest.RandomBytes(3<<20+17, 1)},
		{name: "emptydir/", dir: true},
		{name: "names/with space.txt", data: []byte("space")},
		{name: "names/ünïcødé-日本.txt", data: []byte("unicode")},
		{name: "links/to-readme", link: "../README.txt"},
		{name: "links/to-dir", link: "../docs"},
		{name: "links/dangling", link: "nowhere/at/all"},
		{name: "links/absolute", link: "/nonexistent/pipefs/target"},
	}
}

// zipArchive writes ms as a zip, deflating files, storing links.
func zipArchive(t *testing.T, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	for _, m := range ms {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: mtime}
		data := m.data
		switch {
		case m.dir:
			h.Method = zip.Store
			h.SetMode(fs.ModeDir | 0o755)
		case m.link != "":
			h.Method = zip.Store
			h.SetMode(fs.ModeSymlink | 0o777)
			data = []byte(m.link)
		case m.hard != "":
			continue
		default:
			h.SetMode(0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarGzArchive writes ms as a gzip-compressed tar.
func tarGzArchive(t *testing.T, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	for _, m := range ms {
		h := &tar.Header{Name: m.name, Mode: 0o644, ModTime: mtime, Size: int64(len(m.data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		switch {
		case m.dir:
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		case m.link != "":
			h.Typeflag, h.Linkname, h.Mode, h.Size = tar.TypeSymlink, m.link, 0o777, 0
		case m.hard != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, m.hard, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(m.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A desc describes one file of a tree, as TestTree compares them.
type desc struct {
	kind string // "dir", "file", "link"
	size int64
	sum  string // sha256 of a file's bytes
	link string // a link's target
}

func (d desc) String() string {
	switch d.kind {
	case "file":
		return fmt.Sprintf("file %d %s", d.size, d.sum[:12])
	case "link":
		return "link -> " + d.link
	}
	return d.kind
}

// walk describes every file under root with ordinary OS calls:
// filepath.WalkDir, os.Open, os.Readlink.
func walk(t *testing.T, root string) map[string]desc {
	t.Helper()
	got := map[string]desc{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			got[rel] = desc{kind: "dir"}
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			got[rel] = desc{kind: "link", link: target}
		case d.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			h := sha256.New()
			n, err := io.Copy(h, f)
			if err != nil {
				return err
			}
			if n != info.Size() {
				return fmt.Errorf("%s: read %d bytes, stat says %d", p, n, info.Size())
			}
			got[rel] = desc{kind: "file", size: n, sum: hex.EncodeToString(h.Sum(nil))}
		default:
			got[rel] = desc{kind: d.Type().String()}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	return got
}

// extract extracts the archive at path with bsdtar into a new directory.
func extract(t *testing.T, path string) string {
	t.Helper()
	bsdtar := fstest.NeedTool(t, "bsdtar")
	dir := t.TempDir()
	if out, err := exec.Command(bsdtar, "-x", "-f", path, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("bsdtar -x: %v: %s", err, out)
	}
	return dir
}

// compareTrees reports every difference between the tree mounted at mnt
// and the one bsdtar extracted at ref.
func compareTrees(t *testing.T, mnt, ref string) {
	t.Helper()
	got, want := walk(t, mnt), walk(t, ref)
	if len(want) == 0 {
		t.Fatal("bsdtar extracted nothing")
	}
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: missing from the mount, want %v", name, w)
		} else if g != w {
			t.Errorf("%s: mount has %v, bsdtar %v", name, g, w)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %v in the mount, not in bsdtar's extraction", name, g)
		}
	}
}

// TestTree mounts a zip and a tar.gz made at test time and compares what
// ordinary OS calls see in the mount (names, kinds, sizes, contents,
// link targets) with what bsdtar extracts from the same archive.
func TestTree(t *testing.T) {
	ms := members()
	tarMembers := append(members(),
		member{name: "hard-readme", hard: "README.txt"},
		member{name: "links/hard-to-link", hard: "links/to-readme"},
	)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"a.zip", zipArchive(t, ms)},
		{"a.tar.gz", tarGzArchive(t, tarMembers)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			mnt, l := mountFile(t, path)
			compareTrees(t, mnt, extract(t, path))
			// Through a link to a directory, as the kernel resolves it.
			got, err := os.ReadFile(filepath.Join(mnt, "links", "to-dir", "guide.md"))
			if err != nil || !bytes.Equal(got, ms[3].data) {
				t.Errorf("reading links/to-dir/guide.md: %d bytes, %v", len(got), err)
			}
			if l.len() != 0 {
				t.Errorf("the mount logged failures:\n%s", l)
			}
		})
	}
}

// TestParallelReaders reads files of a mount from 16 goroutines at once,
// each with its own descriptor, at offsets of its own.
func TestParallelReaders(t *testing.T) {
	big := fstest.RandomBytes(8<<20, 2)
	files := map[string][]byte{"big.bin": big, "text.txt": bytes.Repeat([]byte("parallel readers\n"), 40000)}
	path := filepath.Join(t.TempDir(), "p.zip")
	if err := os.WriteFile(path, fstest.ZipBytes(files, zip.Deflate), 0o644); err != nil {
		t.Fatal(err)
	}
	mnt, l := mountFile(t, path)
	const readers = 16
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for i := range readers {
		wg.Go(func() {
			name := "big.bin"
			if i%4 == 3 {
				name = "text.txt"
			}
			want := files[name]
			f, err := os.Open(filepath.Join(mnt, name))
			if err != nil {
				errs <- err
				return
			}
			defer f.Close()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			buf := make([]byte, 256<<10)
			for range 32 {
				off := r.Int64N(int64(len(want)))
				n, err := f.ReadAt(buf[:1+r.IntN(len(buf))], off)
				if err != nil && err != io.EOF {
					errs <- fmt.Errorf("reader %d: ReadAt(%d): %w", i, off, err)
					return
				}
				if !bytes.Equal(buf[:n], want[off:off+int64(n)]) {
					errs <- fmt.Errorf("reader %d: ReadAt(%d) = %d bytes that differ from the file's", i, off, n)
					return
				}
			}
			// Then the whole file, from the start.
			got, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
			if err != nil || !bytes.Equal(got, want) {
				errs <- fmt.Errorf("reader %d: reading %s whole: %d bytes, %v", i, name, len(got), err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if l.len() != 0 {
		t.Errorf("the mount logged failures:\n%s", l)
	}
}

// TestReadOnly checks that every change fails with EROFS, that missing
// names fail with ENOENT, and that listings hold "." and "..".
func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.zip")
	files := map[string][]byte{"a.txt": []byte("alpha"), "d/b.txt": []byte("beta")}
	if err := os.WriteFile(path, fstest.ZipBytes(files, zip.Deflate), 0o644); err != nil {
		t.Fatal(err)
	}
	mnt, l := mountFile(t, path)
	a := filepath.Join(mnt, "a.txt")
	for _, tc := range []struct {
		op  string
		err func() error
	}{
		{"create", func() error { _, err := os.Create(filepath.Join(mnt, "new.txt")); return err }},
		{"open for writing", func() error { _, err := os.OpenFile(a, os.O_WRONLY, 0); return err }},
		{"open for appending", func() error { _, err := os.OpenFile(a, os.O_RDWR|os.O_APPEND, 0); return err }},
		{"truncate", func() error { return os.Truncate(a, 0) }},
		{"mkdir", func() error { return os.Mkdir(filepath.Join(mnt, "newdir"), 0o755) }},
		{"unlink", func() error { return syscall.Unlink(a) }},
		{"rmdir", func() error { return syscall.Rmdir(filepath.Join(mnt, "d")) }},
		{"rename", func() error { return os.Rename(a, filepath.Join(mnt, "renamed.txt")) }},
		{"symlink", func() error { return os.Symlink("a.txt", filepath.Join(mnt, "link")) }},
		{"link", func() error { return os.Link(a, filepath.Join(mnt, "hard")) }},
		{"chmod", func() error { return os.Chmod(a, 0o600) }},
		{"chtimes", func() error { return os.Chtimes(a, time.Now(), time.Now()) }},
		{"setxattr", func() error { return syscall.Setxattr(a, "user.pipefs", []byte("x"), 0) }},
	} {
		if err := tc.err(); !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s: error = %v, want EROFS", tc.op, err)
		}
	}
	// A listing holds "." and "..", as on any file system.
	if out, err := exec.Command(fstest.NeedTool(t, "ls"), "-a1", mnt).CombinedOutput(); err != nil || string(out) != ".\n..\na.txt\nd\n" {
		t.Errorf("ls -a1 = %q, %v; want %q", out, err, ".\n..\na.txt\nd\n")
	}
	if got, err := os.ReadFile(a); err != nil || string(got) != "alpha" {
		t.Errorf("a.txt after the attempts = %q, %v; want %q", got, err, "alpha")
	}
	for _, name := range []string{"missing.txt", "d/missing.txt", "missing/x"} {
		if _, err := os.Stat(filepath.Join(mnt, name)); !errors.Is(err, syscall.ENOENT) {
			t.Errorf("stat %s: error = %v, want ENOENT", name, err)
		}
		if _, err := os.Open(filepath.Join(mnt, name)); !errors.Is(err, syscall.ENOENT) {
			t.Errorf("open %s: error = %v, want ENOENT", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(mnt, "a.txt", "x")); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("stat a.txt/x: error = %v, want ENOTDIR", err)
	}
	if l.len() != 0 {
		t.Errorf("the mount logged failures:\n%s", l)
	}
}
