package ocdbtadapter

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs/driver"
)

// memTree is a driver.Tree over a map of file contents.
type memTree map[string][]byte

func (m memTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if b, ok := m[name]; ok {
		return &driver.FileInfo{FName: filepath.Base(name), FSize: int64(len(b)), FMode: 0o444}, nil
	}
	for k := range m {
		if strings.HasPrefix(k, name+"/") || name == "." {
			return &driver.FileInfo{FName: filepath.Base(name), FMode: fs.ModeDir | 0o555}, nil
		}
	}
	return nil, fs.ErrNotExist
}

func (m memTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return nil, fs.ErrInvalid
}

func (m memTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	b, ok := m[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return driver.BytesBlob(b, &driver.FileInfo{FName: filepath.Base(name), FSize: int64(len(b)), FMode: 0o444}), nil
}

// loadDir reads every file under the shared OCDBT fixture name into a
// memTree.
func loadDir(t testing.TB, name string) memTree {
	t.Helper()
	dir := fstest.Fixture(t, "ocdbt/"+name)
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
		t.Fatalf("reading fixture %s: %v", name, err)
	}
	return m
}

// readAll reads every file of the tree through ReadDir and OpenBlob, as
// a map from fs name to contents.
func readAll(ctx context.Context, tr driver.Tree) (map[string]string, error) {
	out := map[string]string{}
	var walk func(dir string) error
	walk = func(dir string) error {
		ents, err := tr.ReadDir(ctx, dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := e.Name()
			if dir != "." {
				name = dir + "/" + name
			}
			if e.IsDir() {
				if err := walk(name); err != nil {
					return err
				}
				continue
			}
			b, err := tr.OpenBlob(ctx, name)
			if err != nil {
				return err
			}
			buf := make([]byte, b.Stat().Size())
			if n, err := b.ReadAt(ctx, buf, 0); n != len(buf) || (err != nil && err != io.EOF) {
				return fmt.Errorf("ReadAt(%q) = %d, %v", name, n, err)
			}
			out[name] = string(buf)
		}
		return nil
	}
	return out, walk(".")
}
