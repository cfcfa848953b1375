package lzo

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Streams laid by hand, one instruction of each kind; the HDF5 adapter's
// tests decode streams written by liblzo2 (through PyTables).
var decodeTests = []struct {
	name string
	src  []byte
	want string
}{
	{"empty", []byte{0x11, 0, 0}, ""},
	{"first literals", []byte{17 + 5, 'h', 'e', 'l', 'l', 'o', 0x11, 0, 0}, "hello"},
	{"literal run", []byte{1, 'a', 'b', 'c', 'd', 0x11, 0, 0}, "abcd"},
	{"extended literal run", append(append([]byte{0, 0, 1}, bytes.Repeat([]byte{'x'}, 255+15+1+3)...), 0x11, 0, 0), string(bytes.Repeat([]byte{'x'}, 274))},
	// after "abcd": M2 of 3 bytes, 4 back (t = (3-1)<<5 | (4-1)&7<<2 = 0x4c, then (4-1)>>3 = 0)
	{"M2", []byte{1, 'a', 'b', 'c', 'd', 0x4c, 0, 0x11, 0, 0}, "abcdabc"},
	// M2 with 2 trailing literals, then an M1: 2 bytes, 2 back
	{"M2 literals M1", []byte{1, 'a', 'b', 'c', 'd', 0x4e, 0, 'y', 'z', 0x04, 0, 0x11, 0, 0}, "abcdabcyzyz"},
	// M3: 32 | length-2, then (dist-1)<<2 little-endian: 5 bytes, 4 back
	{"M3", []byte{1, 'a', 'b', 'c', 'd', 32 | 3, 3 << 2, 0, 0x11, 0, 0}, "abcdabcda"},
	// after a literal run, t < 16 is a 3-byte match 2049 or more back:
	// 2052 literals (t 0: 7 zero bytes of 255, 15 + 249 + 3), then t 0
	{"far M1", farM1(), string(farLits) + string(farLits[3:6])},
}

var farLits = bytes.Repeat([]byte("0123456789abcdefg"), 2052/17+1)[:2052]

func farM1() []byte {
	b := append([]byte{0}, make([]byte, 7)...)
	b = append(b, 249)
	b = append(b, farLits...)
	return append(b, 0, 0, 0x11, 0, 0)
}

func TestDecompress(t *testing.T) {
	for _, tc := range decodeTests {
		got, n, err := Decompress(tc.src, 1<<20)
		if err != nil || string(got) != tc.want || n != len(tc.src) {
			t.Errorf("%s: Decompress = %q, %d, %v; want %q, %d", tc.name, got, n, err, tc.want, len(tc.src))
		}
	}
}

func TestDecompressErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  []byte
		max  int
		want error
	}{
		{"no end", []byte{1, 'a', 'b', 'c', 'd'}, 100, driver.ErrCorrupt},
		{"before start", []byte{1, 'a', 'b', 'c', 'd', 0x4c, 1, 0x11, 0, 0}, 100, driver.ErrCorrupt},
		{"short literals", []byte{17 + 5, 'h'}, 100, driver.ErrCorrupt},
		{"over max", []byte{17 + 5, 'h', 'e', 'l', 'l', 'o', 0x11, 0, 0}, 4, driver.ErrLimit},
		{"zero run", make([]byte, 1<<16), 1 << 10, driver.ErrLimit},
	} {
		if _, _, err := Decompress(tc.src, tc.max); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

// FuzzDecompress: no panic, output within max, errors corrupt or limit.
func FuzzDecompress(f *testing.F) {
	for _, tc := range decodeTests {
		f.Add(tc.src, uint16(300))
	}
	f.Fuzz(func(t *testing.T, src []byte, max uint16) {
		out, n, err := Decompress(src, int(max))
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) {
				t.Fatalf("error %v is neither corrupt nor limit", err)
			}
			return
		}
		if len(out) > int(max) || n > len(src) {
			t.Fatalf("%d bytes out (max %d), %d read of %d", len(out), max, n, len(src))
		}
	})
}
