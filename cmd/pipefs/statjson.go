package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// headerJSON returns a raw header (vfs.Origin.Header) as typed JSON, for
// stat --json: the object its type marshals to, so numbers are numbers,
// times RFC 3339 strings and byte slices base64, with every member whose
// value is zero (0, false, "", null, the zero time, an empty array or
// object) left out, at every level. A header that encoding/json cannot
// marshal (a NaN, a func field) is walked by reflection instead, a
// non-finite number written as the string "NaN", "+Inf" or "-Inf". The
// version string of a remote object is {"version": "..."}, and the
// legacy 32-bit and MS-DOS fields of a *zip.FileHeader, which repeat the
// fields shown, are left out. It returns nil when nothing is left.
func headerJSON(h any) (json.RawMessage, error) {
	switch x := h.(type) {
	case string:
		h = struct {
			Version string `json:"version"`
		}{x}
	case *zip.FileHeader:
		h = currentZipHeader(x)
	default:
		if isSyscall(reflect.TypeOf(h)) {
			// A local file's stat_t: its times as times, without
			// padding (see plainValue).
			h = plainValue(reflect.ValueOf(h), 0)
		}
	}
	b, err := marshalJSON(h)
	if err != nil {
		if b, err = marshalJSON(plainValue(reflect.ValueOf(h), 0)); err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	out, zero, err := pruneJSON(dec)
	if err != nil || zero {
		return nil, err
	}
	return out, nil
}

// currentZipHeader returns h without its deprecated fields (the 32-bit
// sizes, the MS-DOS time and date), which repeat the others.
func currentZipHeader(h *zip.FileHeader) *zip.FileHeader {
	return &zip.FileHeader{
		Name: h.Name, Comment: h.Comment, NonUTF8: h.NonUTF8,
		CreatorVersion: h.CreatorVersion, ReaderVersion: h.ReaderVersion,
		Flags: h.Flags, Method: h.Method, Modified: h.Modified, CRC32: h.CRC32,
		CompressedSize64: h.CompressedSize64, UncompressedSize64: h.UncompressedSize64,
		Extra: h.Extra, ExternalAttrs: h.ExternalAttrs,
	}
}

// zeroTime is the zero time.Time as encoding/json writes it.
const zeroTime = `0001-01-01T00:00:00Z`

// pruneJSON reads one JSON value from dec and returns it without the
// members of its objects whose values are zero, and whether the value
// itself is zero. Array elements are all kept: their positions matter.
func pruneJSON(dec *json.Decoder) (out []byte, zero bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, false, err
	}
	switch t := tok.(type) {
	case json.Delim:
		var b bytes.Buffer
		n := 0
		if t == '{' {
			b.WriteByte('{')
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, false, err
				}
				v, vz, err := pruneJSON(dec)
				if err != nil {
					return nil, false, err
				}
				if vz {
					continue
				}
				if n > 0 {
					b.WriteByte(',')
				}
				key, _ := marshalJSON(k)
				b.Write(key)
				b.WriteByte(':')
				b.Write(v)
				n++
			}
			b.WriteByte('}')
		} else {
			b.WriteByte('[')
			for dec.More() {
				v, _, err := pruneJSON(dec)
				if err != nil {
					return nil, false, err
				}
				if n > 0 {
					b.WriteByte(',')
				}
				b.Write(v)
				n++
			}
			b.WriteByte(']')
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, false, err
		}
		return b.Bytes(), n == 0, nil
	case nil:
		return []byte("null"), true, nil
	case bool:
		return []byte(strconv.FormatBool(t)), !t, nil
	case json.Number:
		f, err := t.Float64()
		return []byte(t), err == nil && f == 0, nil
	case string:
		s, err := marshalJSON(t)
		return s, t == "" || t == zeroTime, err
	}
	return nil, false, fmt.Errorf("unexpected JSON token %v", tok)
}

// maxJSONDepth bounds how deep plainValue walks a header, which a cycle
// of pointers would make endless.
const maxJSONDepth = 32

var marshalerType = reflect.TypeFor[json.Marshaler]()

// plainValue returns v as values that encoding/json marshals whatever
// they hold: a json.Marshaler that succeeds as its JSON, a non-finite
// float as a string, a complex number as [real, imag], a struct as an
// object of its exported fields named as encoding/json names them, and
// nothing (nil) for a func, a channel or what lies deeper than
// maxJSONDepth.
func plainValue(v reflect.Value, depth int) any {
	if !v.IsValid() || depth > maxJSONDepth {
		return nil
	}
	if v.Type().Implements(marshalerType) && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		if b, err := v.Interface().(json.Marshaler).MarshalJSON(); err == nil && json.Valid(b) {
			return json.RawMessage(b)
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return plainValue(v.Elem(), depth+1)
	case reflect.Float32, reflect.Float64:
		return finite(v.Float())
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return []any{finite(real(c)), finite(imag(c))}
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Bytes()
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = plainValue(v.Index(i), depth+1)
		}
		return out
	case reflect.Map:
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[fmt.Sprint(it.Key().Interface())] = plainValue(it.Value(), depth+1)
		}
		return out
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			return t
		}
		if t, ok := timespecTime(v); ok {
			return t
		}
		var obj object
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || isPadding(t, sf) {
				continue
			}
			name := sf.Name
			if tag, _, _ := strings.Cut(sf.Tag.Get("json"), ","); tag == "-" {
				continue
			} else if tag != "" {
				name = tag
			}
			obj = append(obj, member{name, plainValue(v.Field(i), depth+1)})
		}
		return obj
	}
	return v.Interface()
}

// isSyscall reports whether t, or what it points to, is a type of package
// syscall, such as the syscall.Stat_t of a local file.
func isSyscall(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == "syscall"
}

// isPadding reports whether sf, a field of the struct t, is the padding
// of a syscall struct ("X__unused"), which holds nothing.
func isPadding(t reflect.Type, sf reflect.StructField) bool {
	return t.PkgPath() == "syscall" && strings.HasPrefix(sf.Name, "X_")
}

// timespecTime returns the time that v holds when it is a
// syscall.Timespec (a time of a local file's stat_t), in UTC.
func timespecTime(v reflect.Value) (time.Time, bool) {
	if v.Kind() != reflect.Struct {
		return time.Time{}, false
	}
	t := v.Type()
	if t.PkgPath() != "syscall" || t.Name() != "Timespec" {
		return time.Time{}, false
	}
	sec, nsec := v.FieldByName("Sec"), v.FieldByName("Nsec")
	if !sec.IsValid() || !nsec.IsValid() || !sec.CanInt() || !nsec.CanInt() {
		return time.Time{}, false
	}
	return time.Unix(sec.Int(), nsec.Int()).UTC(), true
}

// finite returns f, or the string that names it when it is not finite,
// which JSON has no number for.
func finite(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return f
}

// An object is a JSON object whose members keep their order.
type object []member

type member struct {
	name  string
	value any
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(m.name)
		if err != nil {
			return nil, err
		}
		v, err := marshalJSON(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
