package xzadapter_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/ulikunitz/xz"

	_ "github.com/pipefs/pipefs/adapters/taradapter"
	"github.com/pipefs/pipefs/fstest"
)

// xzDecode decodes an xz file with github.com/ulikunitz/xz, the reference
// reader of these tests.
func xzDecode(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := xz.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("xz.NewReader: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("xz decoding: %v", err)
	}
	return out
}

// TestConformanceTarXz runs the conformance kit on testdata/tree.tar.xz,
// made by GNU tar and the xz tool in blocks of 64 KiB (six blocks):
//
//	tar --sort=name --owner=0 --group=0 --numeric-owner \
//		--mtime=2024-01-02T03:04:05Z -C tree -cf tree.tar .
//	xz -T1 --block-size=65536 tree.tar
//
// The expected tree is what archive/tar reads of the decoded archive.
func TestConformanceTarXz(t *testing.T) {
	data, err := os.ReadFile("testdata/tree.tar.xz")
	if err != nil {
		t.Fatal(err)
	}
	files, dirs := fstest.TarFiles(t, xzDecode(t, data))
	prefix := fstest.MapFiles(t, map[string][]byte{"tree.tar.xz": data})
	fstest.Run(t, fstest.Case{
		Pipeline:   "memory:/" + prefix + "/tree.tar.xz|" + scheme + "|pipefs.tar:",
		Files:      files,
		Dirs:       dirs,
		Exhaustive: true,
	})
}

// TestConformanceFile runs the file checks of the conformance kit on the
// decoded bytes of xz files: several blocks, several streams with padding,
// no check, an empty stream, incompressible data.
func TestConformanceFile(t *testing.T) {
	for _, name := range []string{"blocks.txt.xz", "multi-padded.xz", "nocheck.xz", "empty.xz", "random.bin.xz"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			prefix := fstest.MapFiles(t, map[string][]byte{"f.xz": data})
			fstest.RunFile(t, fstest.FileCase{Pipeline: "memory:/" + prefix + "/f.xz|" + scheme, Data: xzDecode(t, data)})
		})
	}
}
