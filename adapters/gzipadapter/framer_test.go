package gzipadapter

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

var errSource = errors.New("source failed")

// TestFramerErrors cuts the input after a member's DEFLATE data (its
// trailer, then a named member with a header CRC) at every byte: an
// error of the input at the cut is returned unchanged, whatever part of
// the trailer or header it stops, and the input ending there is
// driver.ErrCorrupt.
func TestFramerErrors(t *testing.T) {
	trailer := []byte{0, 0, 0, 0, 0, 0, 0, 0} // CRC-32 and size of no data
	next := []byte{0x1f, 0x8b, 8, flagName | flagHCRC, 0, 0, 0, 0, 0, 3, 'a', 0}
	crc := crc32.ChecksumIEEE(next)
	next = append(next, byte(crc), byte(crc>>8))
	input := append(trailer, next...)
	f := &framer{size: 1 << 20, maxName: 255}
	for k := range len(input) {
		for _, cause := range []error{errSource, context.Canceled, io.EOF} {
			r := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(input[:k]), errReader{cause}), 16)
			_, _, err := f.Next(context.Background(), r, 0, 100, 0, 0)
			switch {
			case cause == io.EOF:
				if !errors.Is(err, driver.ErrCorrupt) {
					t.Errorf("input ending after %d bytes: %v; want ErrCorrupt", k, err)
				}
			case !errors.Is(err, cause) || errors.Is(err, driver.ErrCorrupt):
				t.Errorf("input failing after %d bytes with %v: %v; want it unchanged", k, cause, err)
			}
		}
	}
	r := bufio.NewReader(bytes.NewReader(input))
	if n, more, err := f.Next(context.Background(), r, 0, 100, 0, 0); err != nil || !more || n != 100+int64(len(input)) {
		t.Errorf("whole input: next %d, more %v, %v; want %d, true, nil", n, more, err, 100+len(input))
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
