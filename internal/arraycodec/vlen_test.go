package arraycodec

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

func vlenBytes(items ...string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(items)))
	for _, s := range items {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

func TestVlenStrings(t *testing.T) {
	want := []string{"", "世界", "🚀🎉", "a"}
	got, err := VlenStrings(vlenBytes(want...), len(want), true)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("VlenStrings = %q, %v", got, err)
	}
	for _, c := range []struct {
		name  string
		src   []byte
		count int
		utf8  bool
	}{
		{"short", []byte{1, 0}, 1, false},
		{"count", vlenBytes("a", "b"), 3, false},
		{"huge count", []byte{0xff, 0xff, 0xff, 0x7f}, 1<<31 - 1, false},
		{"past end", append(vlenBytes("abc")[:8], 'a'), 1, false},
		{"trailing", append(vlenBytes("a"), 0), 1, false},
		{"utf8", vlenBytes("\xff"), 1, true},
	} {
		if _, err := VlenStrings(c.src, c.count, c.utf8); !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", c.name, err)
		}
	}
	if got, err := VlenStrings(vlenBytes("\xff"), 1, false); err != nil || got[0] != "\xff" {
		t.Errorf("vlen-bytes = %q, %v", got, err)
	}
}

func TestJSON2Strings(t *testing.T) {
	got, err := JSON2Strings([]byte(`["foo","bar",null,"qux","|O",[4]]`), 4, "-")
	if want := []string{"foo", "bar", "-", "qux"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("JSON2Strings = %q, %v", got, err)
	}
	for _, src := range []string{`["a","|O",[2]]`, `["a","b","|O",[3]]`, `{}`, `["a"]`, `["a","|O",[-1]]`, `["a","|O",[1e30]]`} {
		if _, err := JSON2Strings([]byte(src), 1, ""); !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("JSON2Strings(%s) = %v, want ErrCorrupt", src, err)
		}
	}
	if _, err := JSON2Strings([]byte(`[1,"|O",[1]]`), 1, ""); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("number item: %v, want ErrUnsupported", err)
	}
}

// FuzzVlenStrings: no input panics, and the strings never hold more bytes
// than the input.
func FuzzVlenStrings(f *testing.F) {
	f.Add(vlenBytes("a", "bb"), uint8(2))
	f.Add([]byte(`["a","|O",[1]]`), uint8(1))
	f.Fuzz(func(t *testing.T, src []byte, count uint8) {
		if got, err := VlenStrings(src, int(count), true); err == nil {
			n := 0
			for _, s := range got {
				n += len(s)
			}
			if len(got) != int(count) || n > len(src) {
				t.Fatalf("%d strings of %d bytes from %d bytes", len(got), n, len(src))
			}
		} else if !errors.Is(err, driver.ErrCorrupt) {
			t.Fatalf("error %v does not match ErrCorrupt", err)
		}
		if got, err := JSON2Strings(src, int(count), ""); err == nil && len(got) != int(count) {
			t.Fatalf("%d strings, want %d", len(got), count)
		}
	})
}
