package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// A Describer is a value that describes itself for people and for
// programs: a header that a driver puts in the Sys of a FileInfo (what
// vfs.Origin.Header holds), such as an HDF5 dataset or a decoded image,
// or the node of an array. A front end (pipefs stat, stat --json, array,
// the pages of package browse) renders the Description as text, JSON or
// HTML without naming the value's type; a header that is no Describer is
// described from its exported fields.
//
// Describe must not do I/O: it describes what the value already holds.
type Describer interface {
	Describe() Description
}

// A Description is what a value says of itself: fields, in the order to
// show them. Its JSON form is one object; its text form is one line per
// field that has a Label.
type Description []Field

// A Field is one member of a Description. It reaches people, programs or
// both:
//
//   - Text: a field with a Label is one line, "Label: Text". A field
//     without one is not shown to people.
//   - JSON: a field with a Key and a Value is the member "Key": Value,
//     the Value as encoding/json marshals it (a typed nil, such as a nil
//     []int64, is null; only a nil Value is left out). A field with a
//     Value and no Key is inline: the members of the JSON object that the
//     Value marshals to are members of the description, as the fields of
//     an embedded struct are (a header gives its own typed JSON this way,
//     and its text fields beside it).
//   - A section: a field with Fields nests them, as the JSON object "Key":
//     {...} when it has a Key, and as their lines, each label prefixed
//     with the section's Label and a space ("hdf5 layout"), when it has a
//     Label.
//
// Keys are lower-case words joined by "_" ("max_shape"), the style of
// every JSON object pipefs writes, and unique within a description.
type Field struct {
	Key    string      // the JSON member's name
	Label  string      // the name for people: "layout", "MaxShape"
	Text   string      // the value for people, on one line
	Value  any         // the value for programs
	Fields Description // the fields of a section
}

// DescribeStruct describes v, a struct or a pointer to one, by its
// exported fields: inline, v as it marshals to JSON; for people, one line
// per field that is set (not zero, not an empty slice or map), labelled
// with the field's Go name. A time is written in RFC 3339, a byte slice
// by its length, a fmt.Stringer by its String method, structs and maps
// and slices of them as compact JSON, and other values as fmt.Print
// writes them. It describes any other v as one line, "Value". A
// Describer whose type is a struct may start from it and rewrite the
// lines it formats better.
func DescribeStruct(v any) Description {
	d := Description{{Value: v}}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return d
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return append(d, Field{Label: "Value", Text: fmt.Sprint(v)})
	}
	t := rv.Type()
	for i := range t.NumField() {
		sf, fv := t.Field(i), rv.Field(i)
		if !sf.IsExported() || fv.IsZero() || (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.Len() == 0 {
			continue
		}
		d = append(d, Field{Label: sf.Name, Text: FieldText(fv.Interface())})
	}
	return d
}

// FieldText formats one value of a field for people, as DescribeStruct
// does.
func FieldText(x any) string {
	switch x := x.(type) {
	case time.Time:
		return x.Format(time.RFC3339)
	case []byte:
		return fmt.Sprintf("%d bytes", len(x))
	case fmt.Stringer:
		return x.String()
	}
	v := reflect.ValueOf(x)
	k := v.Kind()
	if k == reflect.Slice || k == reflect.Array {
		k = v.Type().Elem().Kind() // [2 3] stays as it is
	}
	switch k {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array, reflect.Interface, reflect.Pointer:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(x) == nil {
			return strings.TrimSuffix(b.String(), "\n")
		}
	}
	return fmt.Sprint(x)
}
