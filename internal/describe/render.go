package describe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Line is one line of a description for people.
type Line struct {
	Label string `json:"label"`
	Text  string `json:"text"`
}

// Lines returns the lines of d for people: one per field with a Label, a
// section's lines labelled with its Label, a space and their own.
func Lines(d driver.Description) []Line {
	var out []Line
	for _, f := range d {
		switch {
		case f.Fields != nil:
			for _, l := range Lines(f.Fields) {
				if f.Label != "" {
					l.Label = f.Label + " " + l.Label
				}
				out = append(out, l)
			}
		case f.Label != "":
			out = append(out, Line{f.Label, f.Text})
		}
	}
	return out
}

// JSON returns d as one compact JSON object (see driver.Field), "<", ">"
// and "&" unescaped. A Value that encoding/json cannot marshal (a NaN, a
// func) is written by its exported fields instead, a non-finite number
// as the string "NaN", "+Inf" or "-Inf".
func JSON(d driver.Description) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	member := func(raw []byte) {
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(raw)
		n++
	}
	for _, f := range d {
		switch {
		case f.Fields != nil && f.Key != "":
			v, err := JSON(f.Fields)
			if err != nil {
				return nil, err
			}
			member(keyed(f.Key, v))
		case f.Value == nil:
		case f.Key != "":
			v, err := marshalValue(f.Value)
			if err != nil {
				return nil, err
			}
			member(keyed(f.Key, v))
		default:
			v, err := marshalValue(f.Value)
			if err != nil {
				return nil, err
			}
			v = bytes.TrimSpace(v)
			if len(v) < 2 || v[0] != '{' || v[len(v)-1] != '}' {
				return nil, fmt.Errorf("describe: inline value %T is no JSON object", f.Value)
			}
			if inner := bytes.TrimSpace(v[1 : len(v)-1]); len(inner) > 0 {
				member(inner)
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Indent returns d as indented JSON (two spaces), as the --json flags
// print it.
func Indent(d driver.Description) ([]byte, error) {
	raw, err := JSON(d)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func keyed(key string, v []byte) []byte {
	k, _ := Marshal(key)
	return append(append(k, ':'), v...)
}

// marshalValue marshals v, or when encoding/json cannot, its plain form.
func marshalValue(v any) ([]byte, error) {
	b, err := Marshal(v)
	if err != nil {
		b, err = Marshal(plainValue(reflect.ValueOf(v), 0, false))
	}
	return b, err
}

// Marshal is json.Marshal without the escaping of "<", ">" and "&",
// which NumPy type strings hold.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
