package gzipadapter_test

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/adapters/gzipadapter"
	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// TestKeptHead: a process that opens a stream another one indexed reads
// the small head kept on disk (header and size), and the checkpoints only
// when it decodes past the first of them, streams, or is asked its size:
// a read of the start, as format detection does, loads nothing more.
func TestKeptHead(t *testing.T) {
	url, plain, store := keptFixture(t)
	if s := store.Stats(); s.Puts != 2 {
		t.Fatalf("%d entries kept, want 2 (head and checkpoints)", s.Puts)
	}
	open := func() *vfs.File {
		t.Helper()
		f, err := vfs.Open(context.Background(), url, &vfs.Options{Cache: vfs.NewCache(0), Disk: store})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	hits := func() int64 { return store.Stats().Hits }
	f := open()
	head := make([]byte, 512)
	if _, err := f.ReadAt(head, 0); err != nil || !bytes.Equal(head, plain[:512]) || hits() != 1 {
		t.Errorf("ReadAt(0): %v; %d entries read, want the head alone", err, hits())
	}
	// The size comes from the checkpoints, checked against the head.
	if info, err := f.Stat(); err != nil || info.Size() != int64(len(plain)) || hits() != 2 {
		t.Errorf("Stat: %v, %v; %d entries read, want 2", info, err, hits())
	}
	tail := make([]byte, 100)
	if n, err := f.ReadAt(tail, int64(len(plain)-100)); n != 100 || err != nil && err != io.EOF || !bytes.Equal(tail, plain[len(plain)-100:]) || hits() != 2 {
		t.Errorf("ReadAt near the end: %v; %d entries read, want 2", err, hits())
	}
	f.Close()

	f = open()
	if _, err := f.ReadAt(tail, int64(len(plain)-100)); err != nil && err != io.EOF || hits() != 4 {
		t.Errorf("a far read first: %v; %d entries read, want 4", err, hits())
	}
	f.Close()

	f = open()
	defer f.Close()
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, plain) || hits() != 6 {
		t.Errorf("streaming: %d bytes, %v; %d entries read, want 6", len(got), err, hits())
	}
}

// keptFixture writes a 3 MiB gzip file, reads it whole once with a store
// on disk (which then keeps its head and checkpoints), and returns its
// pipeline, its bytes and the store.
func keptFixture(t *testing.T) (string, []byte, *disk.Store) {
	t.Helper()
	plain := fstest.RandomBytes(3<<20, 6)
	var gz bytes.Buffer
	zw := stdgzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	name := filepath.Join(t.TempDir(), "r.bin.gz")
	if err := os.WriteFile(name, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := vfs.FromPath(name)
	if err != nil {
		t.Fatal(err)
	}
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := vfs.Open(context.Background(), p.String()+"|gzip:", &vfs.Options{Cache: vfs.NewCache(0), Disk: store})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("first read: %d bytes, %v", len(got), err)
	}
	return p.String() + "|gzip:", plain, store
}

// TestKeptIndexStays: a later process whose reads start before the first
// checkpoint and go past it, or that opens the stream twice in one
// cache, uses the kept index and writes nothing back over it.
func TestKeptIndexStays(t *testing.T) {
	url, plain, store := keptFixture(t)
	puts := store.Stats().Puts
	c := vfs.NewCache(0)
	open := func() *vfs.File {
		f, err := vfs.Open(context.Background(), url, &vfs.Options{Cache: c, Disk: store})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f1, f2 := open(), open()
	p := make([]byte, 2<<20)
	if _, err := f1.ReadAt(p, 0); err != nil || !bytes.Equal(p, plain[:len(p)]) {
		t.Fatalf("ReadAt(0, 2 MiB): %v", err)
	}
	if pts, _ := gzipadapter.IndexStats(f1); pts < 3 {
		t.Errorf("the stream has %d checkpoints: the kept index was not taken", pts)
	}
	tail := make([]byte, 100)
	if n, err := f2.ReadAt(tail, int64(len(plain)-100)); n != 100 || err != nil && err != io.EOF || !bytes.Equal(tail, plain[len(plain)-100:]) {
		t.Fatalf("second open, ReadAt near the end: %v", err)
	}
	f1.Close()
	f2.Close()
	if got := store.Stats().Puts; got != puts {
		t.Errorf("%d entries written over the kept ones, want none", got-puts)
	}
}

// TestKeptHeadWrongSize: a kept head whose size is not the stream's is
// never reported, is disproved by the kept index, and is replaced; the
// stream reads whole.
func TestKeptHeadWrongSize(t *testing.T) {
	url, plain, store := keptFixture(t)
	// The head is the smaller of the two files; rewrite its size.
	files, _ := filepath.Glob(filepath.Join(store.Dir(), "*.pfi"))
	if len(files) != 2 {
		t.Fatalf("%d files kept, want 2", len(files))
	}
	headFile := files[0]
	if a, b := fileSize(t, files[0]), fileSize(t, files[1]); b < a {
		headFile = files[1]
	}
	raw, err := os.ReadFile(headFile)
	if err != nil {
		t.Fatal(err)
	}
	key := string(raw[24 : 24+binary.LittleEndian.Uint32(raw[12:])])
	data, err := disk.Decode(key, raw, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, lie := range []int64{10, int64(len(plain)) + 5} {
		t.Run(fmt.Sprint(lie), func(t *testing.T) {
			_, _, size, err := gzipadapter.DecodeKeptHead(data, 1<<30, 4096)
			if err != nil || size != int64(len(plain)) {
				t.Fatalf("DecodeKeptHead: size %d, %v", size, err)
			}
			if err := os.WriteFile(headFile, disk.Encode(key, gzipadapter.WithHeadSize(data, lie)), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := vfs.Open(context.Background(), url, &vfs.Options{Cache: vfs.NewCache(0), Disk: store})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, plain) {
				t.Errorf("ReadAll: %d bytes of %d, %v", len(got), len(plain), err)
			}
			if info, err := f.Stat(); err != nil || info.Size() != int64(len(plain)) {
				t.Errorf("Stat after the read: %v, %v", info, err)
			}
			// The pass to the end kept a true head in its place.
			raw, err := os.ReadFile(headFile)
			if err != nil {
				t.Fatal(err)
			}
			kept, err := disk.Decode(key, raw, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, size, err := gzipadapter.DecodeKeptHead(kept, 1<<30, 4096); err != nil || size != int64(len(plain)) {
				t.Errorf("the head kept after the read: size %d, %v", size, err)
			}
		})
	}
}

func fileSize(t *testing.T, name string) int64 {
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
