package describe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
	"unicode"
)

// maxJSONDepth bounds how deep plainValue walks a value, which a cycle of
// pointers would make endless.
const maxJSONDepth = 32

var marshalerType = reflect.TypeFor[json.Marshaler]()

// plainValue returns v as values that encoding/json marshals whatever
// they hold: a json.Marshaler that succeeds as its JSON, a non-finite
// float as a string, a complex number as [real, imag], a struct as an
// object of its exported fields (those of an embedded struct among them)
// named by their JSON tags, or else by their Go names (in this package's
// style when snake is set), a syscall.Timespec as a time, and nothing
// (nil) for a func, a channel or what lies deeper than maxJSONDepth.
func plainValue(v reflect.Value, depth int, snake bool) any {
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
		return plainValue(v.Elem(), depth+1, snake)
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
			out[i] = plainValue(v.Index(i), depth+1, snake)
		}
		return out
	case reflect.Map:
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[fmt.Sprint(it.Key().Interface())] = plainValue(it.Value(), depth+1, snake)
		}
		return out
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			return t
		}
		if t, ok := timespecTime(v); ok {
			return t
		}
		return plainStruct(v, depth, snake)
	}
	return v.Interface()
}

// plainStruct is plainValue of a struct.
func plainStruct(v reflect.Value, depth int, snake bool) object {
	var obj object
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || isPadding(t, sf) {
			continue
		}
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		fv := v.Field(i)
		if sf.Anonymous && tag == "" && fv.Kind() == reflect.Struct {
			obj = append(obj, plainStruct(fv, depth+1, snake)...)
			continue
		}
		name := tag
		if name == "" {
			name = sf.Name
			if snake {
				name = snakeCase(name)
			}
		}
		obj = append(obj, member{name, plainValue(fv, depth+1, snake)})
	}
	return obj
}

// snakeCase writes a Go name in this package's JSON style: "CRC32" is
// "crc32", "CompressedSize64" "compressed_size64", "PAXRecords"
// "pax_records", "NonUTF8" "non_utf8".
func snakeCase(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
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
		k, err := Marshal(m.name)
		if err != nil {
			return nil, err
		}
		v, err := Marshal(m.value)
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
