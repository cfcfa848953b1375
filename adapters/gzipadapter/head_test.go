package gzipadapter_test

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/vfs"
)

// TestKeptHead: a process that opens a stream another one indexed reads
// the small head kept on disk (header and size), and the checkpoints only
// when it decodes past the first of them or streams: a read of the
// start, as format detection does, loads nothing more.
func TestKeptHead(t *testing.T) {
	plain := fstest.RandomBytes(3<<20, 5)
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
	url := p.String() + "|gzip:"
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	open := func() *vfs.File {
		t.Helper()
		f, err := vfs.OpenFile(ctx, url, &vfs.Options{Cache: vfs.NewCache(0), Disk: store})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := open()
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("first read: %d bytes, %v", len(got), err)
	}
	f.Close()
	if s := store.Stats(); s.Puts != 2 {
		t.Fatalf("%d entries kept, want 2 (head and checkpoints)", s.Puts)
	}

	hits := func() int64 { return store.Stats().Hits }
	f = open()
	if info, err := f.Stat(); err != nil || info.Size() != int64(len(plain)) || hits() != 1 {
		t.Errorf("Stat: %v, %v; %d entries read, want the head alone", info, err, hits())
	}
	head := make([]byte, 512)
	if _, err := f.ReadAt(head, 0); err != nil || !bytes.Equal(head, plain[:512]) || hits() != 1 {
		t.Errorf("ReadAt(0): %v; %d entries read, want the head alone", err, hits())
	}
	tail := make([]byte, 100)
	if n, err := f.ReadAt(tail, int64(len(plain)-100)); n != 100 || err != nil && err != io.EOF || !bytes.Equal(tail, plain[len(plain)-100:]) || hits() != 2 {
		t.Errorf("ReadAt near the end: %v; %d entries read, want 2", err, hits())
	}
	f.Close()

	f = open()
	defer f.Close()
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, plain) || hits() != 4 {
		t.Errorf("streaming: %d bytes, %v; %d entries read, want 4", len(got), err, hits())
	}
}
