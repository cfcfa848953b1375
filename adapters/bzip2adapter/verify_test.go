package bzip2adapter_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestReadChecksStream: a read that stops short of the end returns its
// bytes once a pass has checked the whole stream (block CRCs and the
// stream CRC): a stream damaged after the read's bytes gives none of them.
func TestReadChecksStream(t *testing.T) {
	bz := fstest.NeedTool(t, "bzip2")
	var plain bytes.Buffer
	for i := 0; plain.Len() < 2<<20; i++ {
		plain.WriteString("a line of text that bzip2 writes in blocks of 900 kB, ")
		plain.WriteByte(byte('a' + i%26))
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "x")
	if err := os.WriteFile(name, plain.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bz, "-k", name).CombinedOutput(); err != nil {
		t.Fatalf("bzip2: %v\n%s", err, out)
	}
	good, err := os.ReadFile(name + ".bz2")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[len(bad)*5/6] ^= 4 // in the last block
	p := make([]byte, 100)
	f, err := open(t, bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := f.ReadAt(p, 0); n != 0 || !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("ReadAt(0) of a stream damaged further on: %d bytes, %v; want none and driver.ErrCorrupt", n, err)
	}
	g, err := open(t, good, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if n, err := g.ReadAt(p, 0); n != len(p) || err != nil || !bytes.Equal(p, plain.Bytes()[:100]) {
		t.Errorf("ReadAt(0) of a good stream: %d bytes, %v", n, err)
	}
}
