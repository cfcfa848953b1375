package vfs_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"testing"
	stdfstest "testing/fstest"

	"github.com/klauspost/compress/zstd"

	_ "github.com/pipefs/pipefs/adapters/zstdadapter"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// TestStreamDir: where a directory is wanted, a compressed file whose
// contents are no container is a folder holding its decompressed file,
// named as the stream's driver names it; the file's URL is the stream's
// pipeline, and it reads with random access.
func TestStreamDir(t *testing.T) {
	ctx := context.Background()
	text := bytes.Repeat([]byte("a line of text\n"), 5000)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"streamdir/big.txt.gz":  gzipOf(t, text),
		"streamdir/big.txt.zst": enc.EncodeAll(text, nil),
		"streamdir/plain.txt":   []byte("plain"),
	}
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	store := memroot.For(o.Cache)
	for name, b := range files {
		if err := store.WriteFile(name, b); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct{ pipeline, want string }{
		{"memory:streamdir/big.txt.gz", "memory:streamdir/big.txt.gz|gzip:"},
		{"memory:streamdir/big.txt.gz|gzip:", "memory:streamdir/big.txt.gz|gzip:"},
		{"memory:streamdir/big.txt.zst", "memory:streamdir/big.txt.zst|zstd:"},
	} {
		t.Run(tc.pipeline, func(t *testing.T) {
			fsys, err := vfs.OpenFS(ctx, tc.pipeline, o)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			if got := fsys.Pipeline().String(); got != tc.want {
				t.Errorf("Pipeline() = %q, want %q", got, tc.want)
			}
			if err := stdfstest.TestFS(fsys, "big.txt"); err != nil {
				t.Error(err)
			}
			got, err := fs.ReadFile(fsys, "big.txt")
			if err != nil || !bytes.Equal(got, text) {
				t.Errorf("ReadFile(big.txt) = %d bytes, %v; want the %d bytes of text", len(got), err, len(text))
			}
			if u := fsys.URL("big.txt"); u != tc.want {
				t.Errorf("URL(big.txt) = %q, want %q", u, tc.want)
			}
			f, err := fsys.OpenFile("big.txt")
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 15)
			if _, err := f.ReadAt(buf, 15*4000); err != nil || string(buf) != "a line of text\n" {
				t.Errorf("ReadAt(15, 60000) = %q, %v", buf, err)
			}
			if err := f.Close(); err != nil {
				t.Errorf("Close() = %v", err)
			}
			// The file again, as a pipeline of its own: the stream.
			g, err := vfs.Open(ctx, fsys.URL("big.txt"), o)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if info, err := g.Stat(); err != nil || info.IsDir() {
				t.Errorf("Open(URL(big.txt)).Stat() = %v, %v; want a file", info, err)
			}
		})
	}

	t.Run("relative", func(t *testing.T) {
		dir, err := vfs.OpenFS(ctx, "memory:streamdir/", o)
		if err != nil {
			t.Fatal(err)
		}
		defer dir.Close()
		sub, err := dir.OpenFS("big.txt.gz")
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		if ents, err := sub.ReadDir("."); err != nil || len(ents) != 1 || ents[0].Name() != "big.txt" || ents[0].IsDir() {
			t.Errorf("ReadDir(.) = %v, %v; want the one file big.txt", ents, err)
		}
	})

	t.Run("detect", func(t *testing.T) {
		// OpenDetect of the compressed file as written: the file itself.
		fsys, f, err := vfs.OpenDetect(ctx, "memory:streamdir/big.txt.gz", o)
		if err != nil || fsys != nil || f == nil {
			t.Fatalf("OpenDetect(big.txt.gz) = %v, %v, %v; want the file", fsys, f, err)
		}
		if f.URL() != "memory:streamdir/big.txt.gz" {
			t.Errorf("OpenDetect(big.txt.gz) opened %s", f.URL())
		}
		f.Close()
		// With the stream written out: its folder.
		fsys, f, err = vfs.OpenDetect(ctx, "memory:streamdir/big.txt.gz|gzip:", o)
		if err != nil || fsys == nil || f != nil {
			t.Fatalf("OpenDetect(big.txt.gz|gzip:) = %v, %v, %v; want the folder", fsys, f, err)
		}
		fsys.Close()
	})

	t.Run("no-detect", func(t *testing.T) {
		nd := &vfs.Options{Cache: o.Cache, NoDetect: true}
		fsys, err := vfs.OpenFS(ctx, "memory:streamdir/big.txt.gz|gzip:", nd)
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		if _, err := fsys.Stat("big.txt"); err != nil {
			t.Errorf("Stat(big.txt) = %v", err)
		}
		if _, err := vfs.OpenFS(ctx, "memory:streamdir/big.txt.gz", nd); !errors.Is(err, vfs.ErrNotDir) {
			t.Errorf("OpenFS(big.txt.gz) without detection = %v, want ErrNotDir", err)
		}
	})

	t.Run("plain", func(t *testing.T) {
		if _, err := vfs.OpenFS(ctx, "memory:streamdir/plain.txt", o); !errors.Is(err, vfs.ErrUnknownFormat) {
			t.Errorf("OpenFS(plain.txt) = %v, want ErrUnknownFormat", err)
		}
	})

	t.Run("damaged", func(t *testing.T) {
		bad := gzipOf(t, text)
		bad[len(bad)-6] ^= 1 // the CRC-32
		if err := store.WriteFile("streamdir/bad/big.txt.gz", bad); err != nil {
			t.Fatal(err)
		}
		// The damage shows when the stream is decoded to its end: at the
		// open, where detection decodes a stream this small, or at the
		// read.
		fsys, err := vfs.OpenFS(ctx, "memory:streamdir/bad/big.txt.gz", o)
		if err == nil {
			defer fsys.Close()
			_, err = fs.ReadFile(fsys, "big.txt")
		}
		if !errors.Is(err, vfs.ErrCorrupt) {
			t.Errorf("opening and reading a stream with a bad CRC-32 = %v, want ErrCorrupt", err)
		}
	})
}
