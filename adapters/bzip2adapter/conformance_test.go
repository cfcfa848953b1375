package bzip2adapter_test

import (
	"bytes"
	"compress/bzip2"
	"io"
	"os"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/taradapter"
	"github.com/pipefs/pipefs/fstest"
)

// bzip2Decode decodes a bzip2 file with compress/bzip2, the reference
// reader of these tests.
func bzip2Decode(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(bzip2.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("compress/bzip2: %v", err)
	}
	return out
}

// TestConformanceTarBz2 runs the conformance kit on
// testdata/tree.tar.bz2, made by GNU tar and the bzip2 tool in blocks of
// 100 kB (four blocks):
//
//	tar --sort=name --owner=0 --group=0 --numeric-owner \
//		--mtime=2024-01-02T03:04:05Z -C tree -cf tree.tar .
//	bzip2 -1 tree.tar
//
// The expected tree is what archive/tar reads of the decoded archive.
func TestConformanceTarBz2(t *testing.T) {
	data, err := os.ReadFile("testdata/tree.tar.bz2")
	if err != nil {
		t.Fatal(err)
	}
	files, dirs := fstest.TarFiles(t, bzip2Decode(t, data))
	prefix := fstest.MapFiles(t, map[string][]byte{"tree.tar.bz2": data})
	fstest.Run(t, fstest.Case{
		Pipeline:   "memory:/" + prefix + "/tree.tar.bz2|" + scheme + "|pipefs.tar:",
		Files:      files,
		Dirs:       dirs,
		Exhaustive: true,
	})
}

// TestConformanceFile runs the file checks of the conformance kit on the
// decoded bytes of bzip2 files: several streams, an empty stream,
// incompressible data, several blocks.
func TestConformanceFile(t *testing.T) {
	for _, name := range []string{"multi.bz2", "empty.bz2", "random.bin.bz2", "seq.txt.bz2"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			prefix := fstest.MapFiles(t, map[string][]byte{"f.bz2": data})
			fstest.RunFile(t, fstest.FileCase{Pipeline: "memory:/" + prefix + "/f.bz2|" + scheme, Data: bzip2Decode(t, data)})
		})
	}
}
