package zstdadapter_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/adapters/zstdadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// DecodeHead gives the start of what the file decodes to, from a head of
// any length: every byte it gives is right, and the whole file gives n
// bytes, or all of it. The frames here declare windows larger than the one
// DecodeHead decodes within (256 KiB for n = 64 KiB), with and without a
// window descriptor (a single segment), and their data refers 300 KiB back.
func TestDecodeHead(t *testing.T) {
	part := fstest.RandomBytes(300<<10, 7)
	data := bytes.Join([][]byte{part, part, part}, nil)
	enc := func(opts ...zstd.EOption) []byte {
		w, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		return w.EncodeAll(data, nil)
	}
	skippable := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	skippable = binary.LittleEndian.AppendUint32(skippable, 5)
	skippable = append(skippable, "12345"...)
	files := map[string][]byte{
		"window":         enc(zstd.WithWindowSize(4<<20), zstd.WithSingleSegment(false)),
		"single segment": enc(zstd.WithSingleSegment(true)),
		"skippable":      append(skippable, enc(zstd.WithWindowSize(4<<20), zstd.WithSingleSegment(false))...),
	}
	names, _ := filepath.Glob("testdata/*.zst")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	for name, z := range files {
		want := oracle(t, z)
		for _, cut := range []int{0, 6, 40, 4096, 200 << 10, len(z)} {
			head := z[:min(cut, len(z))]
			got, err := zstdadapter.DecodeHead(head, 64<<10, vfs.Limits{})
			if !bytes.HasPrefix(want, got) {
				t.Errorf("%s: DecodeHead(head of %d bytes) = %d bytes, %v; not what the file starts with", name, len(head), len(got), err)
			}
			if len(head) == len(z) && len(got) != min(64<<10, len(want)) {
				t.Errorf("%s: DecodeHead(the whole file) = %d bytes, %v; want %d", name, len(got), err, min(64<<10, len(want)))
			}
		}
	}
}

// DecodeHead refuses a frame whose window is over Limits.MaxWindow, as
// opening the file does, and stops before a later frame that is.
func TestDecodeHeadLimit(t *testing.T) {
	w, err := zstd.NewWriter(nil, zstd.WithWindowSize(4<<20), zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	big := w.EncodeAll([]byte("a frame with a window of 4 MiB\n"), nil)
	if big[4]&0x20 != 0 {
		t.Fatal("a single-segment frame")
	}
	big[5] = (22 - 10) << 3 // its window descriptor: 4 MiB
	small, err := os.ReadFile("testdata/hello.txt.zst")
	if err != nil {
		t.Fatal(err)
	}
	lim := vfs.Limits{MaxWindow: 1 << 20}
	if _, err := zstdadapter.DecodeHead(big, 4096, lim); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("DecodeHead with MaxWindow 1 MiB = %v, want ErrLimit", err)
	}
	if got, err := zstdadapter.DecodeHead(append(small, big...), 4096, lim); string(got) != "hello, zstd\n" || err != nil {
		t.Errorf("DecodeHead of a small frame then one over MaxWindow = %q, %v; want the small frame's", got, err)
	}
}
