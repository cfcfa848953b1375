package gzipadapter_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/gzipadapter"
	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestCheckStopsAtMember: a read near the end of a good member, whose
// check decodes on to the member's trailer, keeps none of the next
// member's output for later reads: a read of a damaged next member fails,
// however the reads before it went.
func TestCheckStopsAtMember(t *testing.T) {
	a := []byte(strings.Repeat("the first member, which is good\n", 2000))
	b := []byte(strings.Repeat("the second member, one of whose bytes is damaged\n", 200))
	// The second member is one stored block, so that the damaged byte
	// decodes (to a wrong byte) and only its CRC-32 tells.
	second := append(header(0, nil, "", ""), 1, byte(len(b)), byte(len(b)>>8), ^byte(len(b)), ^byte(len(b)>>8))
	second = append(second, b...)
	second = binary.LittleEndian.AppendUint32(second, crc32.ChecksumIEEE(b))
	second = binary.LittleEndian.AppendUint32(second, uint32(len(b)))
	second[10+5+10] ^= 1
	gz := append(member(header(0, nil, "", ""), a), second...)
	f, err := openGz(t, "x.gz", gz, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 100)
	if _, err := f.ReadAt(p, int64(len(a)-100)); err != nil || !bytes.Equal(p, a[len(a)-100:]) {
		t.Fatalf("ReadAt at the end of the good member: %v", err)
	}
	if n, err := f.ReadAt(p, int64(len(a))); n != 0 || !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("ReadAt of the damaged member after the good one: %d bytes, %v; want none and driver.ErrCorrupt", n, err)
	}
}

// TestFailedPassKeepsNothing: a stream whose trailer does not check out
// keeps no index on disk, partial or not, so that no later process
// resumes from what the failed pass learned.
func TestFailedPassKeepsNothing(t *testing.T) {
	data := []byte(strings.Repeat("a stream whose trailer lies, long enough for checkpoints ", 60000))
	gz := member(header(0, nil, "", ""), data)
	gz[len(gz)-8] ^= 1
	name := filepath.Join(t.TempDir(), "bad.gz")
	if err := os.WriteFile(name, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := vfs.FromPath(name)
	if err != nil {
		t.Fatal(err)
	}
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	o := &vfs.Options{Cache: vfs.NewCache(0), Disk: store, Schemes: map[string]any{"gzip": &gzipadapter.Options{Spacing: 64 << 10}}}
	f, err := vfs.Open(context.Background(), p.String()+"|gzip:", o)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	if _, err := f.ReadAt(buf, int64(len(data)/2)); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("ReadAt: %v, want driver.ErrCorrupt", err)
	}
	f.Close()
	if s := store.Stats(); s.Puts != 0 {
		t.Errorf("%d entries kept on disk after a failed pass, want none", s.Puts)
	}
}
