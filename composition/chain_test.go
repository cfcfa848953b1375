package composition_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// The chain of issue 4: zip > tar.gz > zip > zst. Every level passes the
// conformance kit, the innermost read through the whole chain, named and
// detected.
func TestZipTarGzZipZst(t *testing.T) {
	// Text-like data: compressible, but far from the 1100:1 bomb bound.
	var big []byte
	for i := 0; len(big) < 640_000; i++ {
		big = fmt.Appendf(big, "line %d: %x\n", i, i*2654435761)
	}
	leaf := map[string][]byte{
		"readme.txt":    []byte("four containers down\n"),
		"data/big.bin":  big,
		"data/empty":    {},
		"data/notes.md": []byte("# notes\n"),
	}
	tarZst := zstdBytes(t, tarBytes(t, leaf))
	inner := map[string][]byte{"d.tar.zst": tarZst, "side.txt": []byte("beside the zst\n")}
	innerZip := zipBytes(t, inner, zip.Deflate)
	mid := map[string][]byte{"inner.zip": innerZip, "etc/conf": []byte("k=v\n")}
	tarGz := gzipBytes(t, tarBytes(t, mid))
	outer := map[string][]byte{"a.tar.gz": tarGz, "top.txt": []byte("top\n")}
	name := "composition/chain/outer.zip"
	if err := memroot.WriteFile(name, zipBytes(t, outer, zip.Store)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll("composition/chain") })

	base := "memory:/" + name
	levels := []struct {
		pipeline string
		files    map[string][]byte
	}{
		{base + "|zip:", outer},
		{base + "|zip:a.tar.gz|gzip:|pipefs.tar:", mid},
		{base + "|zip:a.tar.gz|gzip:|pipefs.tar:inner.zip|zip:", inner},
		{base + "|zip:a.tar.gz|gzip:|pipefs.tar:inner.zip|zip:d.tar.zst|zstd:|pipefs.tar:", leaf},
	}
	for _, l := range levels {
		t.Run(l.pipeline, func(t *testing.T) {
			fstest.Run(t, fstest.Case{Pipeline: l.pipeline, Files: l.files, Exhaustive: true})
		})
	}

	// Detection finds every adapter of the chain by itself.
	ctx := context.Background()
	fsys, err := vfs.OpenFS(ctx, base+"|zip:a.tar.gz|pipefs.tar:inner.zip|zip:d.tar.zst", nil)
	if err == nil {
		t.Errorf("a tar named over a gzip stream opened: %v", fsys.Pipeline())
		fsys.Close()
	}
	fsys, err = vfs.OpenFS(ctx, base+"|zip:a.tar.gz", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fsys.Pipeline().String(), base+"|zip:a.tar.gz|gzip:|pipefs.tar:"; got != want {
		t.Errorf("detected %q, want %q", got, want)
	}
	fsys.Close()
	f, err := vfs.Open(ctx, base+"|zip:a.tar.gz|gzip:|pipefs.tar:inner.zip|zip:d.tar.zst|zstd:|pipefs.tar:data/big.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 16)
	if _, err := f.ReadAt(buf, 300_001); err != nil || !bytes.Equal(buf, big[300_001:300_017]) {
		t.Errorf("ReadAt four containers down = %q, %v", buf, err)
	}
	if b, err := io.ReadAll(f); err != nil || !bytes.Equal(b, leaf["data/big.bin"]) {
		t.Errorf("ReadAll four containers down: %d bytes, %v", len(b), err)
	}
}
