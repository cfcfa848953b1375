package zarradapter

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs/driver"
)

// parseTypestr parses a NumPy typestr ("<i2", "|b1", ">U13", "|S7",
// "<M8[ns]"). It returns the type and whether its stored bytes are big
// endian.
func parseTypestr(s string) (array.DType, bool, error) {
	if len(s) < 2 {
		return array.DType{}, false, driver.Corruptf("dtype %q", s)
	}
	order, rest := s[0], s[1:]
	switch order {
	case '<', '>', '|', '=':
	default:
		order, rest = '|', s
	}
	big := order == '>'
	kind := rest[0]
	sizeStr, unit, _ := strings.Cut(rest[1:], "[")
	if kind == 'O' && sizeStr == "" {
		sizeStr = "0"
	}
	size, err := strconv.Atoi(sizeStr)
	if err != nil || size < 0 || size > 1<<20 {
		return array.DType{}, false, array.Unsupported("dtype %q", s)
	}
	var d array.DType
	var ok bool
	switch kind {
	case 'b':
		d, ok = array.Numeric("bool")
		ok = ok && size == 1
	case 'i':
		d, ok = array.Numeric(fmt.Sprintf("int%d", size*8))
	case 'u':
		d, ok = array.Numeric(fmt.Sprintf("uint%d", size*8))
	case 'f':
		d, ok = array.Numeric(fmt.Sprintf("float%d", size*8))
	case 'c':
		d, ok = array.Numeric(fmt.Sprintf("complex%d", size*8))
	case 'S':
		d, ok = array.DType{Name: fmt.Sprintf("bytes[%d]", size), Size: size, Kind: 'S', Unit: 1}, size > 0
	case 'V':
		d, ok = array.DType{Name: fmt.Sprintf("raw[%d]", size), Size: size, Kind: 'V', Unit: 1}, size > 0
	case 'U':
		d, ok = array.DType{Name: fmt.Sprintf("fixed_length_utf32[%d]", size), Size: 4 * size, Kind: 'U', Unit: 4}, size > 0
	case 'M', 'm':
		name := "datetime64"
		if kind == 'm' {
			name = "timedelta64"
		}
		unit = strings.TrimSuffix(unit, "]")
		d, ok = array.DType{Name: name + "[" + unit + "]", Size: 8, Kind: kind, Unit: 8}, size == 8
	case 'O':
		d, ok = array.DType{Name: "object", Kind: 'O'}, true
	}
	if !ok {
		return array.DType{}, false, array.Unsupported("dtype %q", s)
	}
	d.Stored = s
	return d, big && d.Unit > 1, nil
}

// parseFill decodes a fill value into one little-endian element of d. A
// JSON null gives nil (undefined). base64 says whether strings encode bytes
// as base64 (Zarr v2 S and V types) and hexBits whether "0x..." gives raw
// bits (Zarr v3).
func parseFill(raw json.RawMessage, d array.DType, base64Bytes bool) ([]byte, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	out := make([]byte, d.Size)
	bad := func() ([]byte, error) {
		return nil, driver.Corruptf("fill_value %s for %s", s, d.Name)
	}
	var str string
	isStr := json.Unmarshal(raw, &str) == nil
	switch d.Kind {
	case 'b':
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return bad()
		}
		switch v := v.(type) {
		case bool:
			if v {
				out[0] = 1
			}
		case float64:
			if v != 0 {
				out[0] = 1
			}
		default:
			return bad()
		}
	case 'i', 'M', 'm':
		if isStr && d.Kind != 'i' && str == "NaT" {
			binary.LittleEndian.PutUint64(out, 1<<63)
			break
		}
		var v json.Number
		if err := json.Unmarshal(raw, &v); err != nil {
			return bad()
		}
		n, err := strconv.ParseInt(v.String(), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(v.String(), 64)
			if ferr != nil || f != math.Trunc(f) {
				return bad()
			}
			n = int64(f)
		}
		putUint(out, uint64(n))
	case 'u':
		var v json.Number
		if err := json.Unmarshal(raw, &v); err != nil {
			return bad()
		}
		n, err := strconv.ParseUint(v.String(), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(v.String(), 64)
			if ferr != nil || f != math.Trunc(f) || f < 0 {
				return bad()
			}
			n = uint64(f)
		}
		putUint(out, n)
	case 'f':
		return parseFloatFill(raw, out, d)
	case 'c':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 2 {
			return bad()
		}
		half := array.DType{Name: d.Name, Size: d.Size / 2, Kind: 'f', Unit: d.Unit}
		for i, p := range parts {
			if _, err := parseFloatFill(p, out[i*half.Size:(i+1)*half.Size], half); err != nil {
				return nil, err
			}
		}
	case 'S', 'V':
		var b []byte
		switch {
		case isStr && base64Bytes:
			var err error
			if b, err = base64.StdEncoding.DecodeString(str); err != nil {
				return bad()
			}
		case isStr:
			b = []byte(str)
		default:
			var ints []byte
			var list []int
			if err := json.Unmarshal(raw, &list); err != nil {
				var n int
				if json.Unmarshal(raw, &n) == nil && n == 0 {
					return out, nil
				}
				return bad()
			}
			for _, v := range list {
				ints = append(ints, byte(v))
			}
			b = ints
		}
		if len(b) > d.Size {
			return bad()
		}
		copy(out, b)
	case 'U':
		if !isStr {
			var n int
			if json.Unmarshal(raw, &n) == nil && n == 0 {
				return out, nil
			}
			return bad()
		}
		i := 0
		for _, r := range str {
			if i+4 > len(out) {
				return bad()
			}
			binary.LittleEndian.PutUint32(out[i:], uint32(r))
			i += 4
		}
	default:
		return nil, nil
	}
	return out, nil
}

func parseFloatFill(raw json.RawMessage, out []byte, d array.DType) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, driver.Corruptf("fill_value %s: %v", raw, err)
	}
	var f float64
	switch v := v.(type) {
	case float64:
		f = v
	case string:
		switch {
		case v == "NaN":
			f = math.NaN()
		case v == "Infinity":
			f = math.Inf(1)
		case v == "-Infinity":
			f = math.Inf(-1)
		case strings.HasPrefix(v, "0x"):
			n, err := strconv.ParseUint(v[2:], 16, 64)
			if err != nil || len(v)-2 != 2*d.Unit {
				return nil, driver.Corruptf("fill_value %q for %s", v, d.Name)
			}
			putUint(out, n)
			return out, nil
		default:
			return nil, driver.Corruptf("fill_value %q for %s", v, d.Name)
		}
	default:
		return nil, driver.Corruptf("fill_value %s for %s", raw, d.Name)
	}
	putFloat(out, f)
	return out, nil
}

// putUint writes the low len(b) bytes of v, little endian.
func putUint(b []byte, v uint64) {
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
}

// getUint reads a little-endian unsigned value of len(b) bytes.
func getUint(b []byte) uint64 {
	var v uint64
	for i := range b {
		v |= uint64(b[i]) << (8 * i)
	}
	return v
}

// putFloat writes f as a little-endian float of len(b) bytes (2, 4, 8).
func putFloat(b []byte, f float64) {
	switch len(b) {
	case 2:
		binary.LittleEndian.PutUint16(b, float16bits(f))
	case 4:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(f)))
	case 8:
		binary.LittleEndian.PutUint64(b, math.Float64bits(f))
	}
}

// getFloat reads a little-endian float of len(b) bytes (2, 4, 8).
func getFloat(b []byte) float64 {
	switch len(b) {
	case 2:
		return float16value(binary.LittleEndian.Uint16(b))
	case 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// float16bits converts f to IEEE 754 half precision, rounding to nearest
// even.
func float16bits(f float64) uint16 {
	b := math.Float32bits(float32(f))
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case b>>23&0xff == 0xff:
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		h := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 != 0 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 != 0 {
		h++
	}
	return sign | uint16(h)
}

// float16value converts IEEE 754 half-precision bits to a float64.
func float16value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h >> 10 & 0x1f)
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * mant * math.Pow(2, -24)
	case 31:
		if mant != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + mant/1024) * math.Pow(2, float64(exp-15))
}
