package main

import (
	"bytes"
	"context"
	"testing"
)

// TestHoldWriter: the first hold bytes stay back until more come or
// flush; the output is the input in order, whatever the sizes written.
func TestHoldWriter(t *testing.T) {
	for _, sizes := range [][]int{{1, 2, 3}, {100 << 10, 900 << 10, 1 << 20}, {3 << 20}, {1 << 20, 5 << 20}} {
		var out bytes.Buffer
		h := &holdWriter{ctx: context.Background(), w: &out, hold: 4 << 20}
		var in []byte
		held := true
		for i, n := range sizes {
			p := bytes.Repeat([]byte{byte('a' + i)}, n)
			in = append(in, p...)
			if _, err := h.Write(p); err != nil {
				t.Fatal(err)
			}
			if held = held && len(in) <= 4<<20; held && out.Len() != 0 {
				t.Fatalf("sizes %v: %d bytes written before the hold was full", sizes, out.Len())
			}
		}
		if err := h.flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("sizes %v: %d bytes out, want the %d written in order", sizes, out.Len(), len(in))
		}
	}
}
