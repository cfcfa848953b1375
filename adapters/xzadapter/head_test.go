package xzadapter_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/adapters/xzadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// DecodeHead gives the start of what the file decodes to, from a head of
// any length: every byte it gives is right, and the whole file gives its
// first block, up to n bytes (all n of them for blocks that large).
func TestDecodeHead(t *testing.T) {
	full := map[string]bool{"random.bin.xz": true, "tree.tar.xz": true} // blocks of 64 KiB or more
	for _, name := range []string{"blocks.txt.xz", "empty.xz", "hello.txt.xz", "multi-padded.xz", "nocheck.xz", "random.bin.xz", "seq-crc32.txt.xz", "tree.tar.xz"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		want := xzDecode(t, data)
		for _, cut := range []int{0, 13, 40, 200, 4096, len(data)} {
			head := data[:min(cut, len(data))]
			got, err := xzadapter.DecodeHead(head, 4096, vfs.Limits{})
			if !bytes.HasPrefix(want, got) {
				t.Errorf("%s: DecodeHead(head of %d bytes) = %d bytes, %v; not what the file starts with", name, len(head), len(got), err)
			}
			if len(head) == len(data) && (len(got) == 0 && len(want) > 0 || full[name] && len(got) != 4096) {
				t.Errorf("%s: DecodeHead(the whole file) = %d bytes, %v", name, len(got), err)
			}
		}
	}
}

// DecodeHead refuses a block whose dictionary is over Limits.MaxWindow, as
// opening the file does.
func TestDecodeHeadLimit(t *testing.T) {
	data, err := os.ReadFile("testdata/hello.txt.xz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := xzadapter.DecodeHead(data, 4096, vfs.Limits{MaxWindow: 1024}); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("DecodeHead with MaxWindow 1 KiB = %v, want ErrLimit", err)
	}
}
