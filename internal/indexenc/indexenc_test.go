package indexenc

import (
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

func TestRoundTrip(t *testing.T) {
	var e Encoder
	e.Uint(300)
	e.Int(-5)
	e.Bool(true)
	e.String("name")
	e.Raw([]byte{1, 2, 3})
	e.Uint(2) // a count of two elements of a byte each
	e.Bool(false)
	e.Bool(true)
	d := NewDecoder(e.Bytes())
	if d.Uint() != 300 || d.Int() != -5 || !d.Bool() || d.String(10) != "name" || string(d.Raw(3)) != "\x01\x02\x03" || d.Count(2) != 2 || d.Bool() || !d.Bool() {
		t.Fatal("values differ")
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
}

// TestBounds checks that lengths and counts over the limit or the bytes
// left are errors, and that the first error sticks.
func TestBounds(t *testing.T) {
	var e Encoder
	e.String("abcdef")
	if d := NewDecoder(e.Bytes()); d.String(5) != "" || !errors.Is(d.Err(), driver.ErrCorrupt) {
		t.Error("a string over its limit was read")
	}
	var c Encoder
	c.Uint(1 << 40)
	if d := NewDecoder(c.Bytes()); d.Count(1<<50) != 0 || d.Err() == nil {
		t.Error("a count over the bytes left was accepted")
	}
	d := NewDecoder([]byte{0x80})
	d.Uint()
	if d.Err() == nil || d.Uint() != 0 || d.Bool() || d.Done() == nil {
		t.Error("a truncated varint was accepted or the error did not stick")
	}
	if err := NewDecoder([]byte{0, 1}).Done(); err == nil {
		t.Error("trailing bytes were accepted")
	}
	if d := NewDecoder([]byte{2}); d.Bool() || d.Err() == nil {
		t.Error("a flag of 2 was accepted")
	}
	var n Encoder
	n.Int(-2)
	if d := NewDecoder(n.Bytes()); d.NonNeg(-1) != -1 || d.Err() == nil {
		t.Error("a number under its minimum was accepted")
	}
}
