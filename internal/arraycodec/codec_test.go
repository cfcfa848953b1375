package arraycodec

import (
	"bytes"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// The example of the array guide, section 3.1 (c-blosc blosclz_compress,
// 272 -> 34 bytes).
var blosclzExample = []byte("\x2fpipefs blosclz! \xe0\x27\x0f\x00z\xe0\xbe\x00\x07tail-end")

func TestBloscLZExample(t *testing.T) {
	got, err := BloscLZ(blosclzExample, 272)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("pipefs blosclz! ", 4) + strings.Repeat("z", 200) + "tail-end"
	if string(got) != want {
		t.Errorf("BloscLZ(example) = %q, want %q", got, want)
	}
	if _, err := BloscLZ(blosclzExample, 271); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("BloscLZ(example, 271) error = %v, want ErrCorrupt", err)
	}
}

func TestUnshuffle(t *testing.T) {
	got := Unshuffle([]byte{1, 4, 2, 5, 3, 6, 9}, 3)
	if want := []byte{1, 2, 3, 4, 5, 6, 9}; !bytes.Equal(got, want) {
		t.Errorf("Unshuffle = %v, want %v", got, want)
	}
	// 8 one-byte elements 0..7: plane k holds bit k of each.
	src := []byte{0xaa, 0xcc, 0xf0, 0, 0, 0, 0, 0}
	if got, want := BitUnshuffle(src, 1), []byte{0, 1, 2, 3, 4, 5, 6, 7}; !bytes.Equal(got, want) {
		t.Errorf("BitUnshuffle = %v, want %v", got, want)
	}
}

func TestCRC32C(t *testing.T) {
	data := []byte("hello")
	sum := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	framed := append(append([]byte{}, data...), byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
	got, err := CRC32C(framed)
	if err != nil || string(got) != "hello" {
		t.Errorf("CRC32C = %q, %v", got, err)
	}
	framed[0] ^= 1
	if _, err := CRC32C(framed); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("CRC32C(bad) error = %v, want ErrCorrupt", err)
	}
}

func TestVlen(t *testing.T) {
	src := []byte{2, 0, 0, 0, 1, 0, 0, 0, 'a', 0, 0, 0, 0}
	items, err := Vlen(src, 2)
	if err != nil || len(items) != 2 || string(items[0]) != "a" || len(items[1]) != 0 {
		t.Errorf("Vlen = %q, %v", items, err)
	}
	if _, err := Vlen([]byte{0xff, 0xff, 0xff, 0x7f}, 1<<31-1); err == nil {
		t.Error("Vlen(huge count) succeeded")
	}
}

func TestLimits(t *testing.T) {
	// A blosc header claiming 4 GiB, and an lz4 prefix claiming 1 GiB.
	h := []byte{2, 1, 0x02, 1, 0xff, 0xff, 0xff, 0xff, 0, 1, 0, 0, 16, 0, 0, 0}
	if _, err := Blosc(h, 1<<20); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("Blosc(4 GiB claim) error = %v, want ErrLimit", err)
	}
	if _, err := LZ4([]byte{0, 0, 0, 0x40, 0}, 1<<20); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("LZ4(1 GiB claim) error = %v, want ErrLimit", err)
	}
	bomb := make([]byte, 1<<20)
	z := mustZstd(t, bomb)
	if _, err := Zstd(z, 1000); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("Zstd(bomb) error = %v, want ErrLimit", err)
	}
	h[0] = 3
	if _, err := Blosc(h, 1<<20); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Blosc(version 3) error = %v, want ErrUnsupported", err)
	}
}
