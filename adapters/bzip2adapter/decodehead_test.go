package bzip2adapter_test

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/pipefs/pipefs/adapters/bzip2adapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestDecodeHead decodes the start of bzip2 files written by bzip2(1)
// from heads cut anywhere: what decodes is a prefix of the output, at
// most n bytes; damage or a head that is no bzip2 matches
// driver.ErrCorrupt.
func TestDecodeHead(t *testing.T) {
	a := vfs.DefaultRegistry.Adapter(bzip2adapter.Scheme)
	if a == nil || a.DecodeHead == nil {
		t.Fatal("the bzip2 adapter registers no DecodeHead")
	}
	for _, name := range []string{"testdata/seq.txt.bz2", "testdata/tree.tar.bz2", "testdata/hello.txt.bz2"} {
		bz, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(bzip2.NewReader(bytes.NewReader(bz)))
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{len(bz), len(bz) / 2, 10} {
			for _, n := range []int{1 << 20, 4096, 1} {
				out, err := a.DecodeHead(bz[:cut], n, vfs.Limits{})
				if err != nil || len(out) > n || !bytes.HasPrefix(plain, out) {
					t.Fatalf("%s: head of %d bytes, n %d: %d bytes, %v; want a prefix of the output", name, cut, n, len(out), err)
				}
				if cut == len(bz) && len(out) != min(n, len(plain)) {
					t.Errorf("%s: whole stream, n %d: %d bytes, want %d", name, n, len(out), min(n, len(plain)))
				}
			}
		}
	}
	if _, err := a.DecodeHead([]byte("BZh9 but not really bzip2 data"), 100, vfs.Limits{}); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("no bzip2: %v, want ErrCorrupt", err)
	}
}
