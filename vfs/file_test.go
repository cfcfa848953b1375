package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// failingTree is a tree whose directory "." holds one file, "f", and whose
// listing and reads fail with err.
type failingTree struct{ err error }

func (t failingTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	switch name {
	case ".":
		return &driver.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555}, nil
	case "f":
		return &driver.FileInfo{FName: "f", FSize: 4, FMode: 0o444}, nil
	}
	return nil, fs.ErrNotExist
}

func (t failingTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return nil, t.err
}

func (t failingTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if name != "f" {
		return nil, fs.ErrNotExist
	}
	return failingBlob{t}, nil
}

type failingBlob struct{ t failingTree }

func (b failingBlob) Stat() fs.FileInfo { info, _ := b.t.Stat(context.Background(), "f"); return info }
func (b failingBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return 0, b.t.err
}

// TestFileErrorsNameTheStage checks that the errors of a File's reads and
// listings keep the driver's message and name the sub-URL that failed.
func TestFileErrorsNameTheStage(t *testing.T) {
	cause := fmt.Errorf("backend said no: %w", &fs.PathError{Op: "get", Path: "key", Err: fs.ErrPermission})
	g := new(Registry)
	g.RegisterRoot(&Root{Scheme: "memory", Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Tree: failingTree{cause}, Path: u.Key()}, nil
	}})
	o := &Options{Registry: g, NoDetect: true}
	ctx := context.Background()
	check := func(what string, err error, op, path, url string) {
		t.Helper()
		var pe *fs.PathError
		var se *StageError
		switch {
		case !errors.Is(err, fs.ErrPermission):
			t.Errorf("%s = %v, want fs.ErrPermission", what, err)
		case !errors.As(err, &pe) || pe.Op != op || pe.Path != path:
			t.Errorf("%s = %v, want a *fs.PathError{%s, %s}", what, err, op, path)
		case !errors.As(err, &se) || se.URL != url:
			t.Errorf("%s = %v, want a StageError naming %s", what, err, url)
		case !errors.Is(err, cause):
			t.Errorf("%s = %v, want the driver's error kept", what, err)
		}
	}

	fsys, err := OpenFS(ctx, "memory:", o)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	d, err := fsys.OpenFile(".")
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.ReadDir(-1)
	check("FS File.ReadDir", err, "readdir", ".", "memory:")
	f, err := fsys.OpenFile("f")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.ReadAt(make([]byte, 2), 0)
	check("FS File.ReadAt", err, "read", "f", "memory:f")
	_, err = f.Read(make([]byte, 2))
	check("FS File.Read", err, "read", "f", "memory:f")
	_, err = f.WriteTo(io.Discard)
	check("FS File.WriteTo", err, "read", "f", "memory:f")
	f.Close()

	f, err = Open(ctx, "memory:f", o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.ReadAt(make([]byte, 2), 0)
	check("OpenFile ReadAt", err, "read", "f", "memory:f")
}

// TestFileNameOfByteTransform checks that a file whose last sub-URL names
// no file (a byte transform such as gzip: or byte-range:) takes the name
// its driver gives, not "." or the range.
func TestFileNameOfByteTransform(t *testing.T) {
	g := newTestRegistry(testTree{"d/a.txt": "abcdef"})
	g.RegisterAdapter(&Adapter{Scheme: "byte-range", OpenFile: func(ctx context.Context, in driver.Blob, u SubURL, env *Env) (driver.Location, error) {
		start, end := u.Range()
		return driver.Location{Blob: driver.SectionBlob(in, int64(start), int64(end-start), &driver.FileInfo{FName: "a.txt", FSize: int64(end - start)})}, nil
	}})
	o := &Options{Registry: g}
	for _, tc := range []struct{ pipeline, name string }{
		{"memory:d/a.txt", "a.txt"},
		{"memory:d/a.txt|test.pass:", "a.txt"},
		{"memory:d/a.txt|byte-range:1-3", "a.txt"},
	} {
		f, err := Open(context.Background(), tc.pipeline, o)
		if err != nil {
			t.Fatalf("Open(%q) = %v", tc.pipeline, err)
		}
		info, _ := f.Stat()
		if f.Name() != tc.name || info.Name() != tc.name {
			t.Errorf("Open(%q): Name() = %q, Stat().Name() = %q, want %q", tc.pipeline, f.Name(), info.Name(), tc.name)
		}
		f.Close()
	}
}

// TestReadAtNegativeOffset checks that a negative offset is an invalid
// argument, as for Seek.
func TestReadAtNegativeOffset(t *testing.T) {
	o := &Options{Registry: newTestRegistry(testTree{"a": "abc"})}
	f, err := Open(context.Background(), "memory:a", o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := f.ReadAt(make([]byte, 1), -1); n != 0 || !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadAt(1, -1) = %d, %v; want 0, fs.ErrInvalid", n, err)
	}
}
