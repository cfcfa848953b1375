package gzipadapter_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestConformanceFile runs the file checks of the conformance kit on the
// gzip files of testdata, against what compress/gzip decodes of them:
// several members, an empty member, a header with a comment or without a
// name, incompressible data.
func TestConformanceFile(t *testing.T) {
	for _, name := range []string{"multi.gz", "empty.gz", "comment.gz", "nameless.gz", "random.bin.gz", "seq.txt.gz"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("compress/gzip: %v", err)
			}
			want, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("compress/gzip: %v", err)
			}
			prefix := fstest.MapFiles(t, map[string][]byte{"f.gz": data})
			fstest.RunFile(t, fstest.FileCase{Pipeline: "memory:/" + prefix + "/f.gz|gzip:", Data: want})
		})
	}
}
