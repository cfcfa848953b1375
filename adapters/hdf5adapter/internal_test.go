package hdf5adapter

import (
	"context"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

func testFile() *file {
	return &file{o: 8, l: 8, lim: vfs.Limits{}.Effective()}
}

// A time member has a precision and no bit offset (PyTables writes them).
func TestTimeInCompound(t *testing.T) {
	msg := []byte{
		0x16, 1, 0, 0, 12, 0, 0, 0, // compound v1, 1 member, 12 bytes
		't', '3', '2', 0, 0, 0, 0, 0, // name, padded to 8
		8, 0, 0, 0, // offset
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // v1 dims
		0x12, 1, 0, 0, 4, 0, 0, 0, 32, 0, // time v1, big endian, 4 bytes, precision 32
	}
	dt, n, err := testFile().parseDType(msg)
	if err != nil || n != len(msg) {
		t.Fatalf("parseDType: %v after %d of %d bytes", err, n, len(msg))
	}
	if f := dt.Fields; len(f) != 1 || f[0].Offset != 8 || f[0].Type.Class != "time" || f[0].Type.Precision != 32 || !f[0].Type.BigEndian {
		t.Errorf("%+v", dt)
	}
}

// A fill value message of version 2 whose size is -1 leaves the fill
// value undefined.
func TestFillSizeMinusOne(t *testing.T) {
	d := &dsInfo{f: testFile(), es: 2}
	o := &object{msgs: []message{{typ: msgFill, body: []byte{2, 1, 0, 1, 0xff, 0xff, 0xff, 0xff}}}}
	if err := d.parseFill(context.Background(), o); err != nil || d.fill != nil {
		t.Errorf("fill % x, %v", d.fill, err)
	}
}

// TestObjectReferenceValue checks that an object reference (an attribute's
// value, a fill value) decodes to the address of the object it points at.
func TestObjectReferenceValue(t *testing.T) {
	b := []byte{0x40, 0x11, 0, 0, 0, 0, 0, 0}
	ref := &DType{Class: "reference", RefType: "object", Size: 8}
	if v := decodeValue(b, ref); v != uint64(0x1140) {
		t.Errorf("decodeValue(object reference %x) = %v (%T), want 4416", b, v, v)
	}
}
