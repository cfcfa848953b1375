package ocdbtadapter

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// fixtures is the shared fixture directory, beside the repository.
const fixtures = "../../../shared/fixtures/ocdbt"

// osTree is a minimal vfs.Tree over an fs.FS, so that the core tests do not
// depend on a root package.
type osTree struct {
	fsys fs.FS
	opened *int // counts OpenBlob calls when set
}

func dirTree(t testing.TB, dir string) *osTree {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	return &osTree{fsys: os.DirFS(dir)}
}

func (o *osTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	return fs.Stat(o.fsys, name)
}

func (o *osTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(o.fsys, name)
}

func (o *osTree) OpenBlob(ctx context.Context, name string) (vfs.Blob, error) {
	if o.opened != nil {
		*o.opened++
	}
	b, err := fs.ReadFile(o.fsys, name)
	if err != nil {
		return nil, err
	}
	info, err := fs.Stat(o.fsys, name)
	if err != nil {
		return nil, err
	}
	return vfs.BytesBlob(b, info), nil
}

// memTree is a vfs.Tree over a map of file contents.
type memTree map[string][]byte

func (m memTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if b, ok := m[name]; ok {
		return &vfs.FileInfo{FName: filepath.Base(name), FSize: int64(len(b)), FMode: 0o444}, nil
	}
	for k := range m {
		if strings.HasPrefix(k, name+"/") || name == "." {
			return &vfs.FileInfo{FName: filepath.Base(name), FMode: fs.ModeDir | 0o555}, nil
		}
	}
	return nil, fs.ErrNotExist
}

func (m memTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return nil, fs.ErrInvalid
}

func (m memTree) OpenBlob(ctx context.Context, name string) (vfs.Blob, error) {
	b, ok := m[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return vfs.BytesBlob(b, &vfs.FileInfo{FName: filepath.Base(name), FSize: int64(len(b)), FMode: 0o444}), nil
}

// loadDir reads every file under dir into a memTree.
func loadDir(t testing.TB, dir string) memTree {
	t.Helper()
	m := memTree{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	return m
}

// treeFS is an fs.FS over a vfs.Tree, for testing/fstest.
type treeFS struct {
	ctx context.Context
	t   vfs.Tree
}

func (f treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	info, err := f.t.Stat(f.ctx, name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if info.IsDir() {
		ents, err := f.t.ReadDir(f.ctx, name)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &treeDir{info: info, ents: ents}, nil
	}
	b, err := f.t.OpenBlob(f.ctx, name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &treeFile{info: info, r: io.NewSectionReader(vfs.ReaderAt(f.ctx, b), 0, info.Size())}, nil
}

type treeFile struct {
	info fs.FileInfo
	r    *io.SectionReader
}

func (f *treeFile) Stat() (fs.FileInfo, error)                { return f.info, nil }
func (f *treeFile) Read(p []byte) (int, error)                { return f.r.Read(p) }
func (f *treeFile) ReadAt(p []byte, off int64) (int, error)   { return f.r.ReadAt(p, off) }
func (f *treeFile) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }
func (f *treeFile) Close() error                              { return nil }

type treeDir struct {
	info fs.FileInfo
	ents []fs.DirEntry
	off  int
}

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *treeDir) Read([]byte) (int, error)   { return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: fs.ErrInvalid} }
func (d *treeDir) Close() error               { return nil }
func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return slices.Clone(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return slices.Clone(rest), nil
}

// readKey reads a file of the tree whole.
func readKey(t testing.TB, tr vfs.Tree, name string) []byte {
	t.Helper()
	ctx := context.Background()
	b, err := tr.OpenBlob(ctx, name)
	if err != nil {
		t.Fatalf("OpenBlob(%q): %v", name, err)
	}
	buf := make([]byte, b.Stat().Size())
	n, err := b.ReadAt(ctx, buf, 0)
	if n != len(buf) || (err != nil && err != io.EOF) {
		t.Fatalf("ReadAt(%q) = %d, %v, want %d bytes", name, n, err, len(buf))
	}
	return buf
}

// walkFiles returns every file of the tree (fs names) with its contents.
func walkFiles(t testing.TB, tr vfs.Tree) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := fs.WalkDir(treeFS{context.Background(), tr}, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got[p] = string(readKey(t, tr, p))
		return nil
	})
	if err != nil {
		t.Fatalf("WalkDir: %v", err)
	}
	return got
}
