package zstdadapter_test

import (
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/fstest"
)

// TestConformanceFile runs the file checks of the conformance kit on the
// zstd files of testdata, against what github.com/klauspost/compress/zstd
// decodes of them: several frames, a long stream, frames without a
// checksum, incompressible data.
func TestConformanceFile(t *testing.T) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, name := range []string{"hello.txt.zst", "multi.zst", "random.bin.zst", "seq.long.zst", "seq.nocheck.zst"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := dec.DecodeAll(data, nil)
			if err != nil {
				t.Fatalf("zstd.DecodeAll: %v", err)
			}
			prefix := fstest.MapFiles(t, map[string][]byte{"f.zst": data})
			fstest.RunFile(t, fstest.FileCase{Pipeline: "memory:/" + prefix + "/f.zst|zstd:", Data: want})
		})
	}
}
