package aec

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// libaecCase is one pair of testdata files written by
// scripts/aecfixtures.sh with libaec's aec tool.
type libaecCase struct {
	name     string
	p        Params
	raw, enc []byte
}

func loadLibaecCases(tb testing.TB) []libaecCase {
	tb.Helper()
	names, err := filepath.Glob("testdata/*.rz")
	if err != nil || len(names) == 0 {
		tb.Fatalf("no testdata/*.rz: %v", err)
	}
	var cases []libaecCase
	for _, name := range names {
		base := strings.TrimSuffix(filepath.Base(name), ".rz")
		c := libaecCase{name: base}
		for _, f := range strings.Split(base, "_") {
			num := func(prefix string) int {
				v, err := strconv.Atoi(strings.TrimPrefix(f, prefix))
				if err != nil {
					tb.Fatalf("%s: %v", base, err)
				}
				return v
			}
			switch {
			case f == "msb":
				c.p.MSB = true
			case f == "nopp":
			case f[0] == 'n':
				c.p.BitsPerSample = num("n")
			case f[0] == 'j':
				c.p.BlockSize = num("j")
			case f[0] == 'r':
				c.p.RSI = num("r")
			}
		}
		c.p.Preprocess = !strings.Contains(base, "_nopp")
		if c.enc, err = os.ReadFile(name); err != nil {
			tb.Fatal(err)
		}
		if c.raw, err = os.ReadFile(strings.TrimSuffix(name, ".rz") + ".raw"); err != nil {
			tb.Fatal(err)
		}
		cases = append(cases, c)
	}
	return cases
}

// TestDecodeLibaec decodes streams libaec encoded to their samples.
func TestDecodeLibaec(t *testing.T) {
	for _, c := range loadLibaecCases(t) {
		got, err := Decode(c.enc, c.p, len(c.raw))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if i := firstDiff(got, c.raw); i >= 0 {
			t.Errorf("%s: byte %d is %#x, libaec %#x", c.name, i, got[i], c.raw[i])
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func TestDecodeErrors(t *testing.T) {
	c := loadLibaecCases(t)[0]
	for _, tc := range []struct {
		name string
		src  []byte
		p    Params
		size int
		want string
	}{
		{"truncated", c.enc[:len(c.enc)/2], c.p, len(c.raw), "stream ends"},
		{"bits", c.enc, Params{BitsPerSample: 33, BlockSize: 8, RSI: 1}, 8, "bits per sample"},
		{"block", c.enc, Params{BitsPerSample: 8, BlockSize: 10, RSI: 1}, 8, "block size"},
		{"rsi", c.enc, Params{BitsPerSample: 8, BlockSize: 8, RSI: 5000}, 8, "reference sample interval"},
		// id 0, second extension, then a code of 100 zero bits
		{"second extension", append(append([]byte{0x10}, make([]byte, 13)...), 1), Params{BitsPerSample: 8, BlockSize: 8, RSI: 1}, 8, "second-extension code"},
		// id 0, zero block, fs 3 (4 blocks) in a 1-block interval
		{"zero run", []byte{0b000_0_0001, 0}, Params{BitsPerSample: 8, BlockSize: 8, RSI: 1}, 64, "zero blocks"},
		// split k 0 of 2 bits: fs 4 does not fit
		{"split", []byte{0b001_00001, 0xff, 0xff}, Params{BitsPerSample: 2, BlockSize: 8, RSI: 1}, 8, "does not fit"},
	} {
		_, err := Decode(tc.src, tc.p, tc.size)
		if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want corrupt data containing %q", tc.name, err, tc.want)
		}
	}
}

func TestDeinterleave(t *testing.T) {
	got := deinterleaveBytes([]byte{1, 2, 3, 10, 20, 30, 9}, 2)
	if want := []byte{1, 10, 2, 20, 3, 30, 9}; !bytes.Equal(got, want) {
		t.Errorf("deinterleaveBytes = %v, want %v", got, want)
	}
	if got := removePadding([]byte{1, 2, 3, 0, 4, 5, 6, 0, 7}, 3, 1); !bytes.Equal(got, []byte{1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("removePadding = %v", got)
	}
}

// FuzzDecode: no panic, exactly size bytes on success, errors corrupt.
func FuzzDecode(f *testing.F) {
	for _, c := range loadLibaecCases(f) {
		f.Add(c.enc[:min(len(c.enc), 512)], uint8(c.p.BitsPerSample), uint8(c.p.BlockSize), uint16(c.p.RSI), c.p.MSB, c.p.Preprocess, uint16(min(len(c.raw), 2048)))
	}
	f.Fuzz(func(t *testing.T, src []byte, n, j uint8, rsi uint16, msb, pp bool, size uint16) {
		p := Params{BitsPerSample: int(n), BlockSize: int(j), RSI: int(rsi), MSB: msb, Preprocess: pp}
		out, err := Decode(src, p, int(size))
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("error %v is not corrupt data", err)
			}
			return
		}
		if len(out) != int(size) {
			t.Fatalf("%d bytes, want %d", len(out), size)
		}
	})
}

// FuzzSzip: the szip layer on top, with any parameters.
func FuzzSzip(f *testing.F) {
	for _, c := range loadLibaecCases(f) {
		f.Add(c.enc[:min(len(c.enc), 512)], SzipNN, uint8(c.p.BitsPerSample), uint8(c.p.BlockSize), uint16(c.p.BlockSize*c.p.RSI-3), uint16(1000))
	}
	f.Fuzz(func(t *testing.T, src []byte, opts int, bpp, ppb uint8, pps, size uint16) {
		out, err := Szip(src, SzipParams{Options: opts, BitsPerPixel: int(bpp), PixelsPerBlock: int(ppb), PixelsPerScanline: int(pps)}, int(size))
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("error %v is not corrupt data", err)
			}
			return
		}
		if len(out) != int(size) {
			t.Fatalf("%d bytes, want %d", len(out), size)
		}
	})
}
