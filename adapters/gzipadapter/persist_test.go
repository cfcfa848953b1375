package gzipadapter

import (
	"compress/gzip"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

func TestDiskRoundTrip(t *testing.T) {
	h := &gzip.Header{Name: "a.txt", Comment: "ünïcode", Extra: []byte("BC\x02\x00\x1b\x00"), ModTime: time.Unix(1700000000, 0), OS: 3}
	b := encodeDisk(h, 42, []byte("index"))
	got, data, ix, err := decodeDisk(b, 100, 4096)
	if err != nil || data != 42 || string(ix) != "index" || !reflect.DeepEqual(got, h) {
		t.Fatalf("got %+v %d %q %v", got, data, ix, err)
	}
	if _, _, _, err := decodeDisk(b, 41, 4096); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("data past the input's end: %v", err)
	}
	if _, _, _, err := decodeDisk(b, 100, 2); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("a name over the limit: %v", err)
	}
	for n := range len(b) {
		if _, _, _, err := decodeDisk(b[:n], 100, 4096); err == nil {
			t.Fatalf("truncated to %d: no error", n)
		}
	}
}

// FuzzDisk decodes arbitrary bytes as what the adapter keeps on disk: no
// panic, and an error matching driver.ErrCorrupt or bounded values.
func FuzzDisk(f *testing.F) {
	f.Add(encodeDisk(&gzip.Header{Name: "a", Extra: []byte("xy")}, 12, []byte("ix")))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, data, ix, err := decodeDisk(b, 1000, 16)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		if data < 10 || data > 1000 || len(h.Name) > 32 || len(h.Extra) > maxExtra || len(ix) > len(b) {
			t.Fatalf("out of bounds: %d %d %d %d", data, len(h.Name), len(h.Extra), len(ix))
		}
	})
}

// FuzzHead decodes arbitrary bytes as the head kept beside an index: no
// panic, and an error matching driver.ErrCorrupt or a size of -1 or more.
func FuzzHead(f *testing.F) {
	f.Add(encodeHead(&gzip.Header{Name: "a"}, 10, head{size: 1 << 20, checkOut: 1 << 19, checkCRC: 7}))
	f.Add(encodeHead(&gzip.Header{}, 10, head{size: -1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, data, hd, err := decodeHead(b, 1000, 16)
		size := hd.size
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("error %v, want driver.ErrCorrupt", err)
			}
			return
		}
		if size < -1 || data < 10 || data > 1000 {
			t.Fatalf("size %d, data %d", size, data)
		}
	})
}
