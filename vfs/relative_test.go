package vfs_test

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	stdfstest "testing/fstest"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/taradapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// relativeServer serves outer.zip, which stores inner.zip (a.txt,
// d/b.txt), pack.tar.gz (t.txt) and plain.txt, and returns the server
// and outer.zip opened through it with a cache of its own.
func relativeServer(t *testing.T) (*fstest.HTTPServer, *vfs.FS) {
	t.Helper()
	inner := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("alpha"), "d/b.txt": []byte("beta")}, zip.Deflate)
	outer := fstest.ZipBytes(map[string][]byte{
		"lib/inner.zip": inner,
		"pack.tar.gz":   fstest.TarGzBytes(map[string][]byte{"t.txt": []byte("tee")}),
		"plain.txt":     []byte("just text"),
	}, zip.Store)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"outer.zip": outer})
	fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/outer.zip", &vfs.Options{Cache: vfs.NewCache(0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return srv, fsys
}

// FS.OpenFS opens a container of an FS as the package-level OpenFS opens
// its URL: the same pipeline, with the format detected, and the same
// files; but it reads it through the FS, so that opening a container
// stored in a remote archive costs no request when its bytes are held.
func TestOpenFSRelative(t *testing.T) {
	srv, fsys := relativeServer(t)
	srv.Reset()
	inner, err := fsys.OpenFS("lib/inner.zip")
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	if n := srv.Requests(); n != 0 {
		t.Errorf("opening lib/inner.zip relative to outer.zip made %d requests, want 0 (outer.zip is held whole):\n%s", n, srv.LogString())
	}
	want := fsys.URL("lib/inner.zip") + "|zip:"
	if got := inner.Pipeline().String(); got != want {
		t.Errorf("Pipeline = %s, want %s", got, want)
	}
	if b, err := fs.ReadFile(inner, "d/b.txt"); err != nil || string(b) != "beta" {
		t.Errorf("d/b.txt: %q, %v", b, err)
	}
	if got, want := inner.URL("d/b.txt"), fsys.URL("lib/inner.zip")+"|zip:d/b.txt"; got != want {
		t.Errorf("URL(d/b.txt) = %s, want %s", got, want)
	}
	// The package-level open of the same URL opens a tree of its own.
	srv.Reset()
	again, err := vfs.OpenFS(context.Background(), fsys.URL("lib/inner.zip"), &vfs.Options{Cache: vfs.NewCache(0)})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() == 0 {
		t.Error("the package-level open made no request: the test shows nothing")
	}
	if err := stdfstest.TestFS(again, "a.txt", "d/b.txt"); err != nil {
		t.Error(err)
	}
	again.Close()
	if err := stdfstest.TestFS(inner, "a.txt", "d/b.txt"); err != nil {
		t.Error(err)
	}

	// Closing the child leaves the parent open.
	inner.Close()
	if b, err := fs.ReadFile(fsys, "plain.txt"); err != nil || string(b) != "just text" {
		t.Errorf("outer.zip after closing inner.zip: %q, %v", b, err)
	}
}

// Adapters given to FS.OpenFS are appended as written, detection going on
// after them; FS.OpenDetect gives a plain file as itself. Errors name the
// whole pipeline and match their cause.
func TestOpenFSRelativeAdapters(t *testing.T) {
	_, fsys := relativeServer(t)
	tgz, err := fsys.OpenFS("pack.tar.gz", "gzip:")
	if err != nil {
		t.Fatal(err)
	}
	defer tgz.Close()
	if got, want := tgz.Pipeline().String(), fsys.URL("pack.tar.gz")+"|gzip:|pipefs.tar:"; got != want {
		t.Errorf("Pipeline = %s, want %s", got, want)
	}
	if b, err := fs.ReadFile(tgz, "t.txt"); err != nil || string(b) != "tee" {
		t.Errorf("t.txt: %q, %v", b, err)
	}
	explicit, err := fsys.OpenFS("pack.tar.gz", "gzip:", "pipefs.tar:")
	if err != nil {
		t.Fatal(err)
	}
	if got := explicit.Pipeline().String(); got != tgz.Pipeline().String() {
		t.Errorf("explicit adapters: Pipeline = %s, want %s", got, tgz.Pipeline())
	}
	explicit.Close()

	d, f, err := fsys.OpenDetect("plain.txt")
	if err != nil || d != nil || f == nil {
		t.Fatalf("OpenDetect(plain.txt) = %v, %v, %v; want a file", d, f, err)
	}
	f.Close()
	d, f, err = fsys.OpenDetect("lib/inner.zip")
	if err != nil || d == nil || f != nil {
		t.Fatalf("OpenDetect(lib/inner.zip) = %v, %v, %v; want an FS", d, f, err)
	}
	d.Close()

	for _, tc := range []struct {
		name     string
		adapters []string
		want     error
	}{
		{"plain.txt", nil, vfs.ErrUnknownFormat},
		{"nope.zip", nil, fs.ErrNotExist},
		{"../x", nil, fs.ErrInvalid},
		{"pack.tar.gz", []string{"nosuch:"}, nil},
	} {
		_, err := fsys.OpenFS(tc.name, tc.adapters...)
		if err == nil {
			t.Errorf("OpenFS(%s, %q) opened", tc.name, tc.adapters)
			continue
		}
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("OpenFS(%s, %q): %v, want %v", tc.name, tc.adapters, err, tc.want)
		}
		if tc.name != "../x" && !strings.Contains(err.Error(), fsys.URL(tc.name)) {
			t.Errorf("OpenFS(%s, %q): %v does not name the pipeline", tc.name, tc.adapters, err)
		}
	}
}

// Opening a container stored in a remote archive, and sniffing the files
// inside it, fetch what they read, not the blocks around it nor whole
// members: the nested zip's end records are read exactly (detection
// declares the tail it reads), and a stored member of 1 MiB opened to
// look at its head (a driver.Unverified read, as deep listings and serve
// make) is not fetched whole at open. A 1.1 MB nested jar is opened and
// its heads sniffed for less than a third of its bytes.
func TestOpenFSRelativeFetchesWhatItReads(t *testing.T) {
	files := map[string][]byte{"res/blob.bin": fstest.RandomBytes(1<<20, 7), "res/big.bin": fstest.RandomBytes(1<<20+1, 8)}
	for i := range 20 {
		files[fmt.Sprintf("com/ex/C%02d.class", i)] = fstest.RandomBytes(600, uint64(i))
	}
	inner := fstest.ZipBytesFunc(files, func(name string) uint16 {
		if strings.HasSuffix(name, ".bin") {
			return zip.Store
		}
		return zip.Deflate
	})
	// Members before and after inner.zip keep it out of the blocks that
	// opening fat.jar reads, at its start and its end.
	pad := fstest.RandomBytes(600<<10, 9)
	outer := fstest.ZipBytes(map[string][]byte{"a/pad.bin": pad, "lib/inner.zip": inner, "z/pad.bin": pad}, zip.Store)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"fat.jar": outer})
	ctx := context.Background()
	fsys, err := vfs.OpenFS(ctx, srv.URL()+"/fat.jar", &vfs.Options{Cache: vfs.NewCache(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	srv.Reset()
	n, err := fsys.OpenFS("lib/inner.zip")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	// Its local header, the block holding its head (format detection),
	// and exactly the 64 KiB and 22 bytes at its end where a zip's end
	// records may be, not the blocks around them.
	if b := srv.Bytes(); b > 256<<10+64<<10+1<<10 {
		t.Errorf("opening the nested zip fetched %d bytes, want its local header, the block of its head and its last 64 KiB at most:\n%s", b, srv.LogString())
	}
	sniff := n.WithContext(driver.Unverified(ctx))
	head := make([]byte, 4096)
	err = fs.WalkDir(n, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := sniff.OpenFile(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.ReadAt(head[:min(len(head), int(f.Size()))], 0); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b := srv.Bytes(); b > int64(len(inner))/3 {
		t.Errorf("opening the nested zip and reading the heads of its %d files fetched %d bytes of its %d:\n%s", len(files), b, len(inner), srv.LogString())
	}
}
