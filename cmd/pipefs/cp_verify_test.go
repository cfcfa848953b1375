package main

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/copier"
	"github.com/pipefs/pipefs/roots/memroot"
)

// TestCpVerify checks the copies against the CRC-32 of zip members: a
// member whose bytes do not match its header's checksum is not kept, and
// --continue copies again a file of the right size with other bytes, and
// a shorter one whose bytes turn out not to be the source's start.
func TestCpVerify(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range []struct {
		name string
		crc  uint32
	}{
		{"good.bin", crc32.ChecksumIEEE(body)},
		{"bad.bin", crc32.ChecksumIEEE(body) ^ 1},
	} {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: m.name, Method: zip.Store, CRC32: m.crc,
			CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(body)), Modified: modTime})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	zw.Close()
	if err := memroot.WriteFile("cli/cp-verify/a.zip", buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll("cli/cp-verify") })
	url := "memory:cli/cp-verify/a.zip|zip:"
	dir := t.TempDir()

	r := runCLI(t, "cp", url+"bad.bin", dir)
	if r.code != 1 || !strings.Contains(r.stderr, "zip:bad.bin") || !strings.Contains(strings.ToLower(r.stderr), "checksum") && !strings.Contains(r.stderr, "CRC") {
		t.Errorf("cp of a member with a bad CRC-32: exit %d, stderr %q; want 1 and a message naming it", r.code, r.stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a copy that does not match its CRC-32 left %v", ents)
	}

	// The right size, other bytes: copied again.
	good := filepath.Join(dir, "good.bin")
	other := bytes.ToUpper(body)
	if err := os.WriteFile(good, other, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "cp", "--continue", url+"good.bin", good)
	checkFile(t, good, body)

	// A shorter file whose bytes are not the source's start: resumed,
	// found out by the checksum, and copied again from the start.
	if err := os.WriteFile(good, other[:len(other)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "cp", "--continue", "-v", url+"good.bin", good)
	if r.code != 0 || strings.Contains(r.stderr, "resumed") {
		t.Errorf("cp --continue over a wrong start: exit %d, stderr %q; want a copy from the start", r.code, r.stderr)
	}
	checkFile(t, good, body)
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("after the copies %s holds %v, want good.bin alone", dir, ents)
	}
}

// TestCpContinueUnreadableRecord checks that --continue reports a record
// of a partial copy that cannot be read, and keeps the partial copy,
// instead of silently copying again from the start.
func TestCpContinueUnreadableRecord(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	if err := os.WriteFile(src, fstest.RandomBytes(1<<20, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "dest.bin")
	partial := dest + copier.PartialSuffix
	if err := os.WriteFile(partial, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dest+copier.SourceSuffix, 0o755); err != nil { // read as a file, it fails
		t.Fatal(err)
	}
	r := runCLI(t, "cp", "--continue", "--no-progress", src, dest)
	if r.code != exitError || !strings.Contains(r.stderr, copier.SourceSuffix) {
		t.Errorf("exit %d, stderr %q; want 1 and an error naming the record", r.code, r.stderr)
	}
	if b, err := os.ReadFile(partial); err != nil || string(b) != "partial" {
		t.Errorf("the partial copy is %q, %v; want it kept", b, err)
	}
}
