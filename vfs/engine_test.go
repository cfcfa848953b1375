package vfs_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/rangeadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func TestByteRangeOverMemory(t *testing.T) {
	ctx := context.Background()
	if err := memroot.WriteFile("engine-test/digits.txt", []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll("engine-test") })

	f, err := vfs.Open(ctx, "memory:/engine-test/digits.txt|byte-range:2-7", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, want := f.URL(), "memory:/engine-test/digits.txt|byte-range:2-7"; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "23456" {
		t.Errorf("ReadAll = %q, %v, want %q", b, err, "23456")
	}
	buf := make([]byte, 4)
	if n, err := f.ReadAt(buf, 3); n != 2 || err != io.EOF || string(buf[:n]) != "56" {
		t.Errorf("ReadAt(4, 3) = %d, %v, %q; want 2, EOF, \"56\"", n, err, buf[:n])
	}
	if off, err := f.Seek(-1, io.SeekEnd); off != 4 || err != nil {
		t.Errorf("Seek(-1, End) = %d, %v", off, err)
	}
	info, _ := f.Stat()
	if o, ok := info.Sys().(*vfs.Origin); !ok || o.URL != f.URL() {
		t.Errorf("Stat().Sys() = %#v, want an *Origin with URL %q", info.Sys(), f.URL())
	}

	empty, err := vfs.Open(ctx, "memory:/engine-test/digits.txt|byte-range:10-10", nil)
	if err != nil {
		t.Fatalf("empty range at the end: %v", err)
	}
	if empty.Size() != 0 {
		t.Errorf("empty range size = %d", empty.Size())
	}
	empty.Close()

	_, err = vfs.Open(ctx, "memory:/engine-test/digits.txt|byte-range:5-11", nil)
	var se *vfs.StageError
	if !errors.Is(err, fs.ErrInvalid) || !errors.As(err, &se) || se.Index != 1 {
		t.Errorf("range past the end: %v, want fs.ErrInvalid at sub-URL 1", err)
	}
}

func TestMemoryFS(t *testing.T) {
	ctx := context.Background()
	for name, data := range map[string]string{
		"engine-fs/a.txt":       "a",
		"engine-fs/d/b.txt":     "bb",
		"engine-fs/d/e/c.txt":   "ccc",
		"engine-fs/odd name|%x": "odd",
	} {
		if err := memroot.WriteFile(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { memroot.RemoveAll("engine-fs") })

	fsys, err := vfs.OpenFS(ctx, "memory:/engine-fs/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if got, want := fsys.URL("d/b.txt"), "memory:/engine-fs/d/b.txt"; got != want {
		t.Errorf("URL(d/b.txt) = %q, want %q", got, want)
	}
	odd := fsys.URL("odd name|%x")
	f, err := vfs.Open(ctx, odd, nil)
	if err != nil {
		t.Fatalf("Open(%q) = %v", odd, err)
	}
	if b, _ := io.ReadAll(f); string(b) != "odd" {
		t.Errorf("Open(%q) reads %q", odd, b)
	}
	f.Close()

	sub, err := fs.Sub(fsys, "d")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sub.(*vfs.FS).URL("e/c.txt"), "memory:/engine-fs/d/e/c.txt"; got != want {
		t.Errorf("Sub(d).URL(e/c.txt) = %q, want %q", got, want)
	}
	if b, err := fs.ReadFile(sub, "e/c.txt"); err != nil || string(b) != "ccc" {
		t.Errorf("Sub(d) ReadFile(e/c.txt) = %q, %v", b, err)
	}
	_, err = fsys.Open("missing")
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "open" || pe.Path != "missing" {
		t.Errorf("Open(missing) = %v, want a PathError{open, missing} matching ErrNotExist", err)
	}
	var se *vfs.StageError
	if !errors.As(err, &se) || se.URL != "memory:/engine-fs/missing" {
		t.Errorf("Open(missing) = %v, want a StageError naming memory:/engine-fs/missing", err)
	}
	if _, err := fsys.Open("../x"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Open(../x) = %v, want ErrInvalid", err)
	}
	if _, err := vfs.OpenFS(ctx, "memory:/engine-fs/a.txt", &vfs.Options{NoDetect: true}); !errors.Is(err, vfs.ErrNotDir) {
		t.Errorf("OpenFS of a file without detection = %v, want ErrNotDir", err)
	}
	d, err := vfs.Open(ctx, "memory:/engine-fs/d", nil)
	if err != nil {
		t.Fatalf("Open of a directory = %v", err)
	}
	defer d.Close()
	if info, err := d.Stat(); err != nil || !info.IsDir() {
		t.Errorf("Open of a directory: Stat() = %v, %v, want a directory", info, err)
	}
	if _, err := d.Read(make([]byte, 1)); !errors.Is(err, vfs.ErrIsDir) {
		t.Errorf("Read of a directory = %v, want ErrIsDir", err)
	}
}

func TestAs(t *testing.T) {
	ctx := context.Background()
	if err := memroot.WriteFile("engine-as/a.txt", []byte("a")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll("engine-as") })
	fsys, err := vfs.OpenFS(ctx, "memory:/engine-as/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var store *memroot.Store
	if !fsys.As(&store) || store != memroot.Default() {
		t.Errorf("FS.As(*memroot.Store) = %v, %p; want the process-wide store", store != nil, store)
	}
	var n *int
	if fsys.As(&n) {
		t.Error("FS.As(**int) matched")
	}

	// The blob a stage's tree opened for the next stage (the memory
	// root's a.zip, for zip:) is asked too, after the stages.
	if err := memroot.WriteFile("engine-as/a.zip", fstest.ZipBytes(map[string][]byte{"m.txt": []byte("m")}, zip.Store)); err != nil {
		t.Fatal(err)
	}
	zfs, err := vfs.OpenFS(ctx, "memory:/engine-as/a.zip|zip:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zfs.Close()
	var fp driver.Fingerprinter
	if !zfs.As(&fp) || fp.Fingerprint() == "" {
		t.Errorf("FS.As(*driver.Fingerprinter) of a zip in memory = %v, want the memory root's blob of a.zip", fp)
	}
}

func TestWriteTo(t *testing.T) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB: several WriteTo reads
	if err := memroot.WriteFile("engine-wt/big.bin", data); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll("engine-wt") })
	f, err := vfs.Open(ctx, "memory:/engine-wt/big.bin|byte-range:5-2999995", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(10, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, f)
	if err != nil || n != int64(len(data))-20 || !bytes.Equal(buf.Bytes(), data[15:len(data)-5]) {
		t.Fatalf("io.Copy after Seek(10) = %d, %v; want %d bytes from offset 15 of the base", n, err, len(data)-20)
	}
	if m, err := f.Read(make([]byte, 1)); m != 0 || err != io.EOF {
		t.Errorf("Read after io.Copy = %d, %v; want 0, EOF", m, err)
	}
}
