package xzadapter_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/ulikunitz/xz"

	"github.com/pipefs/pipefs/vfs"
)

// TestDictionarySum refuses a file of many tiny streams that each ask for
// a large dictionary: the decoder allocates one for each block, so 32
// streams of 8 MiB made a file of 2 KiB allocate 256 MiB.
func TestDictionarySum(t *testing.T) {
	stream := func(dict int) []byte {
		var buf bytes.Buffer
		w, err := xz.WriterConfig{DictCap: dict}.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "x")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	big := bytes.Repeat(stream(8<<20), 32)
	o := &vfs.Options{Limits: vfs.Limits{MaxWindow: 8 << 20}}
	if _, err := open(t, big, o); !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), "MaxWindow") {
		t.Errorf("open(32 streams of 8 MiB dictionaries, MaxWindow 8 MiB) = %v, want ErrLimit naming MaxWindow", err)
	}
	// A few concatenated files still open: one window and the output.
	small := bytes.Repeat(stream(1<<20), 4)
	f, err := open(t, small, o)
	if err != nil {
		t.Fatalf("open(4 streams of 1 MiB dictionaries) = %v", err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != "xxxx" {
		t.Errorf("ReadAll = %q, %v; want %q", b, err, "xxxx")
	}
}
