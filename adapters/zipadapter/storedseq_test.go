package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// A large stored member read in small pieces in order (an inner archive's
// local header, then the first bytes of its data) is not a whole-file
// read: it fetches what it reads, not the rest of the member. Reads in
// order past seqReadMin are one, and the rest of the member is then
// fetched ahead in a few requests.
func TestStoredSmallReadsInOrder(t *testing.T) {
	big := fstest.RandomBytes(2<<20, 3)
	pad := fstest.RandomBytes(300<<10, 4)
	outer := fstest.ZipBytes(map[string][]byte{"a.bin": pad, "big.bin": big, "z.bin": pad}, zip.Store)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"o.zip": outer})
	fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/o.zip", &vfs.Options{Cache: vfs.NewCache(0), NoReadAhead: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	f, err := fsys.OpenFile("big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	srv.Reset()
	at := int64(1 << 20)
	for _, n := range []int{30, 4096} {
		p := make([]byte, n)
		if _, err := f.ReadAt(p, at); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p, big[at:at+int64(n)]) {
			t.Fatalf("bytes at %d differ", at)
		}
		at += int64(n)
	}
	if b := srv.Bytes(); b > 2*256<<10 {
		t.Errorf("two small reads in order fetched %d bytes, want the blocks they read:\n%s", b, srv.LogString())
	}
	srv.Reset()
	p := make([]byte, 32<<10)
	for off := int64(0); off < int64(len(big)); off += int64(len(p)) {
		if _, err := f.ReadAt(p, off); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p, big[off:off+int64(len(p))]) {
			t.Fatalf("bytes at %d differ", off)
		}
	}
	if r := srv.Requests(); r > 8 {
		t.Errorf("reading the member whole in 32 KiB pieces made %d requests, want a few:\n%s", r, srv.LogString())
	}
}
