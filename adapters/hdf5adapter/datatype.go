package hdf5adapter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A DType is an HDF5 datatype, as the datatype message stores it.
type DType struct {
	// NumPy is the NumPy dtype.str of the type as h5py reads it: "<i4",
	// ">u8", "<f2", "|u1", "|b1" (an h5py boolean enum), "|S5", "<c8"
	// and ">c16" (h5py's complex numbers: a compound of two floats of
	// the same type named "r" and "i", at offsets 0 and half its size;
	// Class stays "compound", with its Fields), "|V12" (other compounds,
	// arrays, opaque), "|O" for variable-length data and references.
	NumPy string `json:"numpy"`
	// Class is "integer", "float", "time", "string", "bitfield",
	// "opaque", "compound", "reference", "enum", "vlen" or "array"; or
	// "unsupported" for a type this package does not read (VAX floats,
	// unknown classes): the dataset is listed, but reading it fails with
	// an error matching errors.ErrUnsupported.
	Class string `json:"class"`
	// Size is the element size in bytes as stored (for vlen data, the
	// size of the stored pointer: 4 + O + 4).
	Size int `json:"size"`
	// BigEndian reports big-endian numbers (integer, float, time,
	// bitfield).
	BigEndian bool `json:"big_endian,omitempty"`
	// Signed reports a signed integer.
	Signed bool `json:"signed,omitempty"`
	// Precision and Offset are the bits used by a number.
	Precision int `json:"precision,omitempty"`
	Offset    int `json:"offset,omitempty"`
	// Fields are the members of a compound type.
	Fields []Field `json:"fields,omitempty"`
	// Members are the members of an enum type.
	Members []EnumMember `json:"members,omitempty"`
	// Base is the base type of an enum, array or vlen sequence.
	Base *DType `json:"base,omitempty"`
	// Dims are the dimensions of an array type.
	Dims []int64 `json:"dims,omitempty"`
	// Charset is "ascii" or "utf-8" for strings.
	Charset string `json:"charset,omitempty"`
	// Padding is "nullterm", "nullpad" or "spacepad" for strings.
	Padding string `json:"padding,omitempty"`
	// VarString reports a variable-length string.
	VarString bool `json:"var_string,omitempty"`
	// Tag is the tag of an opaque type.
	Tag string `json:"tag,omitempty"`
	// RefType is "object" or "region" for references.
	RefType string `json:"ref_type,omitempty"`
}

// A Field is one member of a compound type.
type Field struct {
	Name   string `json:"name"`
	Offset int    `json:"offset"`
	Type   DType  `json:"type"`
}

// An EnumMember is one member of an enum type. Value is the member's value
// as a signed or unsigned integer of the base type.
type EnumMember struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// Variable reports data that the file holds as heap pointers (vlen data,
// references), whose bytes are not the values.
func (t *DType) Variable() bool {
	switch t.Class {
	case "vlen", "reference":
		return true
	case "compound":
		for i := range t.Fields {
			if t.Fields[i].Type.Variable() {
				return true
			}
		}
	case "array", "enum":
		return t.Base != nil && t.Base.Variable()
	}
	return false
}

// String formats the type for people: the NumPy string, and for
// variable-length strings "vlen str".
func (t *DType) String() string {
	switch {
	case t.VarString:
		return "vlen str (" + t.Charset + ")"
	case t.Class == "vlen" && t.Base != nil:
		return "vlen " + t.Base.String()
	case t.Class == "reference":
		return t.RefType + " reference"
	}
	return t.NumPy
}

// complexNumPy returns the NumPy complex dtype that h5py reads compound t
// as ("<c8", ">c16"): two members "r" and "i" (h5py's default complex
// names), in that order, of the same float type, at offsets 0 and half
// the compound's size.
func complexNumPy(t *DType) (string, bool) {
	if len(t.Fields) != 2 {
		return "", false
	}
	r, i := &t.Fields[0], &t.Fields[1]
	fs := r.Type.Size
	if r.Name != "r" || i.Name != "i" || r.Type.Class != "float" || i.Type.Class != "float" ||
		r.Type.NumPy != i.Type.NumPy || i.Type.Size != fs || t.Size != 2*fs ||
		r.Offset != 0 || i.Offset != fs {
		return "", false
	}
	switch fs {
	case 4, 8, 16:
		return fmt.Sprintf("%sc%d", r.Type.NumPy[:1], t.Size), true
	}
	return "", false
}

// order returns the NumPy byte order character for a size-byte number.
func order(be bool, size int) string {
	if size == 1 {
		return "|"
	}
	if be {
		return ">"
	}
	return "<"
}

// parseDType parses a datatype message.
func (f *file) parseDType(b []byte) (DType, int, error) {
	c := f.cursor(b, "datatype message")
	t, err := f.dtype(c, 0)
	if err == nil {
		err = c.err
	}
	return t, c.p, err
}

func (f *file) dtype(c *cursor, depth int) (DType, error) {
	if depth > maxTypeDepth {
		return DType{}, driver.Limitf("datatype nested more than %d deep", maxTypeDepth)
	}
	cv := c.u8()
	class, version := cv&0x0f, cv>>4
	bits := uint32(c.u8()) | uint32(c.u8())<<8 | uint32(c.u8())<<16
	size := c.u32()
	if c.err != nil {
		return DType{}, c.err
	}
	if size == 0 || size > 1<<28 {
		return DType{}, driver.Corruptf("datatype of %d bytes", size)
	}
	t := DType{Size: int(size)}
	switch class {
	case 0, 2, 4: // fixed-point, time, bitfield
		t.BigEndian = bits&1 != 0
		if class == 2 {
			t.Precision = int(c.u16()) // time: precision only
		} else {
			t.Offset, t.Precision = int(c.u16()), int(c.u16())
		}
		switch class {
		case 0:
			t.Class = "integer"
			t.Signed = bits&8 != 0
			k := "u"
			if t.Signed {
				k = "i"
			}
			t.NumPy = fmt.Sprintf("%s%s%d", order(t.BigEndian, t.Size), k, t.Size)
		case 2:
			t.Class = "time"
			t.NumPy = fmt.Sprintf("|V%d", t.Size)
		case 4:
			t.Class = "bitfield"
			t.NumPy = fmt.Sprintf("%su%d", order(t.BigEndian, t.Size), t.Size)
		}
	case 1:
		t.Class = "float"
		if bits&0x41 == 0x40 || bits&0x41 == 0x41 {
			return t, fmt.Errorf("%w: VAX floating point", errors.ErrUnsupported)
		}
		t.BigEndian = bits&1 != 0
		t.Offset, t.Precision = int(c.u16()), int(c.u16())
		c.skip(4 + 4)
		t.NumPy = fmt.Sprintf("%sf%d", order(t.BigEndian, t.Size), t.Size)
	case 3:
		t.Class = "string"
		t.Padding = [...]string{"nullterm", "nullpad", "spacepad", "nullterm"}[bits&3]
		t.Charset = charset(bits >> 4 & 0xf)
		t.NumPy = fmt.Sprintf("|S%d", t.Size)
	case 5:
		t.Class = "opaque"
		n := int(bits & 0xff)
		t.Tag = strings.TrimRight(string(c.take(n)), "\x00")
		t.NumPy = fmt.Sprintf("|V%d", t.Size)
	case 6:
		t.Class = "compound"
		t.NumPy = fmt.Sprintf("|V%d", t.Size)
		n := int(bits & 0xffff)
		if n > c.left() {
			return t, driver.Corruptf("compound of %d members in %d bytes", n, c.left())
		}
		for i := 0; i < n && c.err == nil; i++ {
			var fl Field
			start := c.p
			name := c.b[c.p:]
			end := indexNUL(name)
			if end < 0 {
				return t, driver.Corruptf("compound member name without a NUL")
			}
			fl.Name = string(name[:end])
			if version < 3 {
				c.skip((end + 8) &^ 7)
				_ = start
				fl.Offset = int(c.u32())
				if version == 1 {
					c.skip(1 + 3 + 4 + 4 + 16) // rank, reserved, permutation, reserved, dims
				}
			} else {
				c.skip(end + 1)
				fl.Offset = int(c.uint(bytesFor(uint64(t.Size))))
			}
			ft, err := f.dtype(c, depth+1)
			if err != nil {
				return t, err
			}
			if fl.Offset < 0 || fl.Offset+ft.Size > t.Size {
				return t, driver.Corruptf("compound member %q at %d of %d bytes past the type's %d", fl.Name, fl.Offset, ft.Size, t.Size)
			}
			fl.Type = ft
			t.Fields = append(t.Fields, fl)
		}
		if np, ok := complexNumPy(&t); ok {
			t.NumPy = np
		}
	case 7:
		t.Class = "reference"
		t.NumPy = "|O"
		t.RefType = "object"
		if bits&0xf == 1 {
			t.RefType = "region"
		}
	case 8:
		t.Class = "enum"
		base, err := f.dtype(c, depth+1)
		if err != nil {
			return t, err
		}
		t.Base = &base
		n := int(bits & 0xffff)
		if n > c.left() {
			return t, driver.Corruptf("enum of %d members in %d bytes", n, c.left())
		}
		names := make([]string, n)
		for i := range names {
			rest := c.b[min(c.p, len(c.b)):]
			end := indexNUL(rest)
			if end < 0 {
				return t, driver.Corruptf("enum member name without a NUL")
			}
			names[i] = string(rest[:end])
			if version < 3 {
				c.skip((end + 8) &^ 7)
			} else {
				c.skip(end + 1)
			}
		}
		for _, name := range names {
			v := c.take(base.Size)
			t.Members = append(t.Members, EnumMember{Name: name, Value: intValue(v, &base)})
		}
		t.NumPy = base.NumPy
		if base.Size == 1 && len(t.Members) == 2 && t.Members[0].Name == "FALSE" && t.Members[0].Value == 0 &&
			t.Members[1].Name == "TRUE" && t.Members[1].Value == 1 {
			t.NumPy = "|b1"
		}
	case 9:
		t.Class = "vlen"
		t.NumPy = "|O"
		t.VarString = bits&0xf == 1
		t.Padding = [...]string{"nullterm", "nullpad", "spacepad", "nullterm"}[bits>>4&3]
		t.Charset = charset(bits >> 8 & 0xf)
		base, err := f.dtype(c, depth+1)
		if err != nil {
			return t, err
		}
		t.Base = &base
		if !t.VarString {
			t.Charset, t.Padding = "", ""
		}
	case 10:
		t.Class = "array"
		t.NumPy = fmt.Sprintf("|V%d", t.Size)
		rank := int(c.u8())
		if rank > maxRank {
			return t, driver.Corruptf("array type of rank %d", rank)
		}
		if version < 3 {
			c.skip(3)
		}
		n := int64(1)
		for range rank {
			d := int64(c.u32())
			t.Dims = append(t.Dims, d)
			n *= max(d, 1)
			if n > 1<<28 {
				return t, driver.Corruptf("array type of %v", t.Dims)
			}
		}
		if version < 3 {
			c.skip(4 * rank)
		}
		base, err := f.dtype(c, depth+1)
		if err != nil {
			return t, err
		}
		t.Base = &base
	default:
		return t, fmt.Errorf("%w: HDF5 datatype class %d", errors.ErrUnsupported, class)
	}
	return t, c.err
}

func charset(v uint32) string {
	if v == 1 {
		return "utf-8"
	}
	return "ascii"
}

func indexNUL(b []byte) int {
	for i, x := range b {
		if x == 0 {
			return i
		}
	}
	return -1
}

// intValue decodes an integer element (for enums).
func intValue(b []byte, t *DType) int64 {
	if len(b) == 0 || len(b) > 8 {
		return 0
	}
	var u uint64
	if t.BigEndian {
		for _, x := range b {
			u = u<<8 | uint64(x)
		}
	} else {
		u = leUint(b)
	}
	if t.Signed && len(b) < 8 && u&(1<<(8*len(b)-1)) != 0 {
		u |= ^uint64(0) << (8 * len(b))
	}
	return int64(u)
}

// decodeValue decodes one element of type t to a Go value: int64 or
// uint64, float64, string (fixed strings with their padding removed),
// []any (arrays), map[string]any (compounds), uint64 for an object
// reference (the address of the object it points at), and the raw bytes
// otherwise. vlen strings and sequences go through the global heap (see
// file.decodeVlen).
func decodeValue(b []byte, t *DType) any {
	switch t.Class {
	case "integer", "enum", "bitfield":
		tt := t
		if t.Class == "enum" && t.Base != nil {
			tt = t.Base
		}
		if len(b) > 8 {
			return append([]byte(nil), b...)
		}
		v := intValue(b, tt)
		if tt.Signed {
			return v
		}
		return uint64(v)
	case "float":
		bo := binary.ByteOrder(binary.LittleEndian)
		if t.BigEndian {
			bo = binary.BigEndian
		}
		switch len(b) {
		case 2:
			return float64(half(bo.Uint16(b)))
		case 4:
			return float64(math.Float32frombits(bo.Uint32(b)))
		case 8:
			return math.Float64frombits(bo.Uint64(b))
		}
	case "reference":
		if t.RefType == "object" && len(b) <= 8 {
			// The address of the object header it points at, as
			// Dataset.Address and Group.Address give it.
			var a [8]byte
			copy(a[:], b)
			return binary.LittleEndian.Uint64(a[:])
		}
	case "string":
		s := string(b)
		switch t.Padding {
		case "spacepad":
			s = strings.TrimRight(s, " ")
		default:
			if i := strings.IndexByte(s, 0); i >= 0 {
				s = s[:i]
			}
		}
		return s
	case "compound":
		m := map[string]any{}
		for _, fl := range t.Fields {
			m[fl.Name] = decodeValue(b[fl.Offset:fl.Offset+fl.Type.Size], &fl.Type)
		}
		return m
	case "array":
		if t.Base != nil && t.Base.Size > 0 {
			var out []any
			for i := 0; i+t.Base.Size <= len(b); i += t.Base.Size {
				out = append(out, decodeValue(b[i:i+t.Base.Size], t.Base))
			}
			return out
		}
	}
	return append([]byte(nil), b...)
}

// half converts an IEEE binary16 to float32.
func half(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		return float32(math.Ldexp(float64(mant), -24)) * float32(1-2*int(sign>>31))
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// dataspace is a parsed dataspace message.
type dataspace struct {
	dims, max []int64 // max -1 for unlimited; nil when the message has none
	null      bool
}

func (f *file) parseDataspace(b []byte) (dataspace, error) {
	c := f.cursor(b, "dataspace message")
	var ds dataspace
	version := c.u8()
	rank := int(c.u8())
	flags := c.u8()
	switch version {
	case 1:
		c.skip(5)
	case 2:
		if c.u8() == 2 {
			ds.null = true
		}
	default:
		return ds, driver.Corruptf("dataspace version %d", version)
	}
	if rank > maxRank {
		return ds, driver.Corruptf("dataspace of rank %d, more than %d", rank, maxRank)
	}
	for range rank {
		d := c.length()
		if d > math.MaxInt64>>1 {
			return ds, driver.Corruptf("dimension %d", d)
		}
		ds.dims = append(ds.dims, int64(d))
	}
	if flags&1 != 0 {
		for range rank {
			d := c.length()
			if d == undef {
				ds.max = append(ds.max, -1)
			} else {
				ds.max = append(ds.max, int64(min(d, math.MaxInt64>>1)))
			}
		}
	}
	if version == 1 && flags&2 != 0 {
		c.skip(4 * rank)
	}
	return ds, c.err
}

// count returns the number of elements, checking overflow.
func (ds dataspace) count() (int64, error) {
	if ds.null {
		return 0, nil
	}
	n := int64(1)
	for _, d := range ds.dims {
		if d != 0 && n > math.MaxInt64/d {
			return 0, driver.Corruptf("dataspace %v overflows", ds.dims)
		}
		n *= d
	}
	return n, nil
}
