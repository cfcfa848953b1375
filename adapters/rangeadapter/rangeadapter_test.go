package rangeadapter_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/rangeadapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// TestConformanceZip runs the conformance kit on a zip archive embedded at
// an offset of a larger file, cut out by byte-range:.
func TestConformanceZip(t *testing.T) {
	files := map[string][]byte{
		"a.txt":        []byte("hello, world\n"),
		"empty":        {},
		"d/random.bin": fstest.RandomBytes(70_000, 1),
		"d/e/text.txt": bytes.Repeat([]byte("some text that deflates\n"), 3000),
	}
	archive := fstest.ZipBytesFunc(files, func(name string) uint16 {
		if name == "d/random.bin" {
			return zip.Store
		}
		return zip.Deflate
	})
	// A zip finds its central directory from its end: junk on both
	// sides makes the range the only way to read it.
	head, tail := fstest.RandomBytes(1000, 2), fstest.RandomBytes(777, 3)
	blob := append(append(append([]byte{}, head...), archive...), tail...)
	prefix := fstest.MapFiles(t, map[string][]byte{"blob.bin": blob})
	rng := fmt.Sprintf("byte-range:%d-%d", len(head), len(head)+len(archive))
	fstest.Run(t, fstest.Case{
		Pipeline:   "memory:/" + prefix + "/blob.bin|" + rng + "|zip:",
		Files:      files,
		Exhaustive: true,
	})
}

// TestConformanceFile runs the file checks of the conformance kit on
// ranges of a file: the whole file, its start, its middle, its end, one
// byte and an empty range.
func TestConformanceFile(t *testing.T) {
	data := fstest.RandomBytes(100_000, 4)
	prefix := fstest.MapFiles(t, map[string][]byte{"f.bin": data})
	for _, r := range [][2]int{{0, len(data)}, {0, 4096}, {12345, 67890}, {len(data) - 1000, len(data)}, {500, 501}, {700, 700}} {
		rng := fmt.Sprintf("byte-range:%d-%d", r[0], r[1])
		t.Run(rng, func(t *testing.T) {
			fstest.RunFile(t, fstest.FileCase{Pipeline: "memory:/" + prefix + "/f.bin|" + rng, Data: data[r[0]:r[1]]})
		})
	}
}

// TestPastTheEnd checks that a range ending past the base is refused at
// open, as an invalid argument, and one ending at the base's end is not.
func TestPastTheEnd(t *testing.T) {
	prefix := fstest.MapFiles(t, map[string][]byte{"f.bin": []byte("0123456789")})
	ctx := context.Background()
	for _, c := range []struct {
		rng  string
		want error
	}{{"0-11", fs.ErrInvalid}, {"10-11", fs.ErrInvalid}, {"5-10", nil}, {"10-10", nil}} {
		f, err := vfs.Open(ctx, "memory:/"+prefix+"/f.bin|byte-range:"+c.rng, nil)
		if err == nil {
			f.Close()
		}
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("byte-range:%s of 10 bytes: error = %v, want %v", c.rng, err, c.want)
		}
	}
}
