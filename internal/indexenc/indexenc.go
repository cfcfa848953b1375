// Package indexenc is the binary encoding of the indexes that drivers keep
// on disk (vfs.DiskIndex): varints, strings and byte strings appended to a
// buffer, and a Decoder that reads them back from untrusted bytes.
//
// A Decoder never panics and never allocates more than the bytes it was
// given: every length and count is checked against what remains (each
// element of a counted list costs at least one byte), and the first error
// sticks, so a caller checks Err once at the end. Errors match
// driver.ErrCorrupt.
package indexenc

import (
	"encoding/binary"

	"github.com/pipefs/pipefs/vfs/driver"
)

// An Encoder appends values to a buffer.
type Encoder struct {
	buf []byte
}

// Bytes returns the encoded bytes.
func (e *Encoder) Bytes() []byte { return e.buf }

// Uint appends v as a uvarint.
func (e *Encoder) Uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

// Int appends v as a varint.
func (e *Encoder) Int(v int64) { e.buf = binary.AppendVarint(e.buf, v) }

// Bool appends b as one byte.
func (e *Encoder) Bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// String appends s with its length.
func (e *Encoder) String(s string) {
	e.Uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// Raw appends p with its length.
func (e *Encoder) Raw(p []byte) {
	e.Uint(uint64(len(p)))
	e.buf = append(e.buf, p...)
}

// A Decoder reads what an Encoder wrote.
type Decoder struct {
	b   []byte
	err error
}

// NewDecoder returns a Decoder of b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Err returns the first error, nil if none.
func (d *Decoder) Err() error { return d.err }

// Fail records err as the decoder's error if it has none, for a value the
// caller found out of place.
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = driver.Corruptf("index cache: "+format, args...)
	}
	d.b = nil
}

// Done checks that every byte was read, and returns Err.
func (d *Decoder) Done() error {
	if d.err == nil && len(d.b) > 0 {
		d.Fail("%d bytes after the index", len(d.b))
	}
	return d.err
}

// Uint reads a uvarint.
func (d *Decoder) Uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.Fail("bad or truncated number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Int reads a varint.
func (d *Decoder) Int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.Fail("bad or truncated number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// NonNeg reads a varint that must be at least min.
func (d *Decoder) NonNeg(min int64) int64 {
	v := d.Int()
	if v < min {
		d.Fail("number %d below %d", v, min)
		return min
	}
	return v
}

// Bool reads one byte, 0 or 1.
func (d *Decoder) Bool() bool {
	if len(d.b) == 0 || d.b[0] > 1 {
		d.Fail("bad or truncated flag")
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

// Count reads the length of a list of elements that take at least one
// byte each, and checks it against max and the bytes remaining.
func (d *Decoder) Count(max int) int {
	v := d.Uint()
	if v > uint64(len(d.b)) || v > uint64(max) {
		d.Fail("count %d over the %d bytes left or the limit %d", v, len(d.b), max)
		return 0
	}
	return int(v)
}

// Raw reads a byte string of at most max bytes. The result aliases the
// decoder's input.
func (d *Decoder) Raw(max int) []byte {
	n := d.Uint()
	if n > uint64(len(d.b)) || n > uint64(max) {
		d.Fail("length %d over the %d bytes left or the limit %d", n, len(d.b), max)
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

// String reads a string of at most max bytes.
func (d *Decoder) String(max int) string { return string(d.Raw(max)) }
