package vfs_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// WriteTo tells its writer's failures from its reads': a writer that
// fails stops it with the writer's own error, not a read error of the
// file, whether the file is streamed (gzip:) or read in pieces; a read
// that fails is a read *fs.PathError of the file that keeps its cause.
func TestWriteToErrors(t *testing.T) {
	ctx := context.Background()
	data := fstest.RandomBytes(300<<10, 1)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := "memory:/" + fstest.MapFiles(t, map[string][]byte{
		"a.bin": data, "a.gz": gz.Bytes(), "cut.gz": gz.Bytes()[:gz.Len()/2],
	}) + "/"
	for _, name := range []string{"a.gz|gzip:", "a.bin"} {
		f, err := vfs.Open(ctx, dir+name, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The reader of a pipe goes away after 1000 bytes.
		gone := errors.New("the reader went away")
		pr, pw := io.Pipe()
		go func() {
			io.CopyN(io.Discard, pr, 1000)
			pr.CloseWithError(gone)
		}()
		_, err = f.WriteTo(pw)
		var pe *fs.PathError
		if err != gone {
			t.Errorf("%s: WriteTo to a writer that fails = %v (a PathError: %v), want the writer's error", name, err, errors.As(err, &pe))
		}
		f.Close()
	}
	f, err := vfs.Open(ctx, dir+"cut.gz|gzip:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.WriteTo(io.Discard)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "read" || !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("WriteTo of a cut gzip stream = %v, want a read PathError matching ErrCorrupt", err)
	}
}
