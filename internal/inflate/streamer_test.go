package inflate

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// TestStream streams each corpus from several offsets, first with no
// index, then with the one the first stream built.
func TestStream(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"random", "mixed"} {
		data := corpus(kind, 2<<20, 11)
		for _, c := range compressors {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				comp := c.fn(t, data)
				s := member(t, comp, data, 64<<10)
				defer s.Close()
				for _, off := range []int64{0, 1, 777777, int64(len(data)) - 5, int64(len(data)), int64(len(data)) + 9} {
					rc, err := s.Stream(ctx, off)
					if err != nil {
						t.Fatalf("Stream(%d): %v", off, err)
					}
					var buf bytes.Buffer
					_, err = io.Copy(&buf, rc)
					rc.Close()
					want := data[min(off, int64(len(data))):]
					if err != nil || !bytes.Equal(buf.Bytes(), want) {
						t.Fatalf("Stream(%d): %d bytes, %v; want %d", off, buf.Len(), err, len(want))
					}
				}
				if pts, _ := s.Index().Stats(); pts < len(data)/(256<<10) {
					t.Errorf("index has %d points after streaming", pts)
				}
			})
		}
	}
}

// TestStreamErrors checks that a streamed member that lies about itself
// ends in an error, not io.EOF, and never yields more than it declares.
func TestStreamErrors(t *testing.T) {
	ctx := context.Background()
	data := corpus("text", 200<<10, 5)
	comp := compressors[1].fn(t, data)
	crc := crc32.ChecksumIEEE(data)
	n := int64(len(data))
	cases := []struct {
		name  string
		comp  []byte
		usize int64
		crc   uint32
	}{
		{name: "bad crc", comp: comp, usize: n, crc: crc + 1},
		{name: "longer", comp: comp, usize: n - 1, crc: crc},
		{name: "shorter", comp: comp, usize: n + 1, crc: crc},
		{name: "truncated", comp: comp[:len(comp)/2], usize: n, crc: crc},
		{name: "garbage", comp: bytes.Repeat([]byte{0xff}, 1000), usize: 5000, crc: crc},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewMember(driver.BytesBlob(tc.comp, nil), 0, int64(len(tc.comp)), tc.usize, tc.crc, true, "", nil)
			rc, err := s.Stream(ctx, 0)
			if err == nil {
				var got int64
				got, err = io.Copy(io.Discard, rc)
				rc.Close()
				if got > tc.usize {
					t.Errorf("streamed %d bytes, more than the declared %d", got, tc.usize)
				}
			}
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Errorf("stream = %v, want ErrCorrupt", err)
			}
		})
	}
}
