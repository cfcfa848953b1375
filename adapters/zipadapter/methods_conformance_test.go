package zipadapter_test

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/fstest"

	_ "github.com/pipefs/pipefs/adapters/zipadapter"
)

// TestConformanceMethods runs the conformance kit on the zips of
// testdata/methods whose members pipefs decodes, through the zip:
// adapter and through format detection; two of them also inside a
// Zstandard member of another zip, opened and detected through it.
func TestConformanceMethods(t *testing.T) {
	src := filepath.Join("testdata", "methods", "src")
	files := map[string][]byte{}
	for _, name := range []string{"hello.txt", "empty.txt", "seq.txt", "dir/rep.bin"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	for _, name := range []string{
		"7z-deflate64.zip", "7z-bzip2.zip", "infozip-bzip2.zip", "python-bzip2.zip",
		"7z-lzma.zip", "7z-lzma-noeos.zip", "python-lzma.zip", "7z-xz.zip", "go-xz.zip",
		"go-zstd.zip", "go-zstd-frames.zip", "go-zstd20.zip",
	} {
		t.Run(strings.TrimSuffix(name, ".zip"), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "methods", name))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]byte{}
			for k, v := range files {
				if k != "dir/rep.bin" || name == "7z-deflate64.zip" {
					want[k] = v
				}
			}
			prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": b, "outer.zip": zstdZip(t, "inner.zip", b)})
			fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/a.zip|zip:", Files: want, Exhaustive: true})
			fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/a.zip", Files: want, Exhaustive: true})
			if name != "7z-deflate64.zip" && name != "python-lzma.zip" {
				return
			}
			// Inside a Zstandard member of another zip: the inner
			// archive is read at random through the decoder.
			fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/outer.zip|zip:inner.zip|zip:", Files: want, Exhaustive: true})
			fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/outer.zip|zip:inner.zip", Files: want, Exhaustive: true})
		})
	}
}

// zstdZip returns a zip of one member, name, compressed with Zstandard
// (method 93) by klauspost/compress.
func zstdZip(t *testing.T, name string, body []byte) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	w.RegisterCompressor(93, func(out io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(out) })
	f, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: 93})
	if err != nil {
		t.Fatal(err)
	}
	f.Write(body)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
